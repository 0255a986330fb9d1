import { unsupportedValue, type StatusCause } from '../../api/status.js';
import { compilePolicy } from '../../admission/policies/compile.js';
import { goFieldValue } from '../../util/go-format.js';
import { arrayAt, isObject, objectAt, text, type Json, type JsonObject } from '../../util/json.js';
import { labelSelectorCauses } from '../label-selector.js';
import { dnsSubdomainCauses, pathSegmentCauses, qualifiedNameCauses } from '../names.js';

/**
 * kube-apiserver's validation of ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding
 * (pkg/apis/admissionregistration/validation), in its words: the rules, selectors and actions, and
 * every expression compiled (compile.ts).
 */

const required = (field: string, detail = ''): StatusCause => ({
  reason: 'FieldValueRequired',
  field,
  message: detail ? `Required value: ${detail}` : 'Required value',
});

const invalid = (field: string, shown: string, why: string): StatusCause => ({
  reason: 'FieldValueInvalid',
  field,
  message: `Invalid value: ${shown}: ${why}`,
});

const duplicate = (field: string, value: string): StatusCause => ({
  reason: 'FieldValueDuplicate',
  field,
  message: `Duplicate value: ${JSON.stringify(value)}`,
});

const texts = (object: JsonObject, key: string): string[] => (arrayAt(object, key) ?? []).map(text);
const objects = (object: JsonObject, key: string): JsonObject[] => (arrayAt(object, key) ?? []).filter(isObject);

/** validateResources: `resource/subresource` entries, and the wildcards that exclude the others. */
function resourceCauses(resources: string[], field: string): StatusCause[] {
  const causes: StatusCause[] = resources.length === 0 ? [required(field)] : [];
  const wildcardSubresourceOf = new Set<string>();
  const wildcardResourceOf = new Set<string>();
  let doubleWildcard = false;
  let singleWildcard = false;
  let plainResource = false;
  for (const [index, entry] of resources.entries()) {
    if (entry === '') {
      causes.push(required(`${field}[${index}]`));
      continue;
    }
    if (entry === '*/*') doubleWildcard = true;
    if (entry === '*') singleWildcard = true;
    const slash = entry.indexOf('/');
    if (slash < 0) {
      plainResource = entry !== '*';
      continue;
    }
    const [resource, subresource] = [entry.slice(0, slash), entry.slice(slash + 1)];
    if (wildcardSubresourceOf.has(resource)) {
      causes.push(
        invalid(
          `${field}[${index}]`,
          JSON.stringify(entry),
          `if '${resource}/*' is present, must not specify ${entry}`,
        ),
      );
    }
    if (wildcardResourceOf.has(subresource)) {
      causes.push(
        invalid(
          `${field}[${index}]`,
          JSON.stringify(entry),
          `if '*/${subresource}' is present, must not specify ${entry}`,
        ),
      );
    }
    if (subresource === '*') wildcardSubresourceOf.add(resource);
    if (resource === '*') wildcardResourceOf.add(subresource);
  }
  if (resources.length > 1 && doubleWildcard) {
    causes.push(invalid(field, goFieldValue(resources), "if '*/*' is present, must not specify other resources"));
  }
  if (singleWildcard && plainResource) {
    causes.push(
      invalid(
        field,
        goFieldValue(resources),
        "if '*' is present, must not specify other resources without subresources",
      ),
    );
  }
  return causes;
}

const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];

/** validateNamedRuleWithOperations: names, operations, groups, versions, resources and scope of one rule. */
function ruleCauses(rule: JsonObject, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const names = texts(rule, 'resourceNames');
  names.forEach((name, index) => {
    causes.push(...pathSegmentCauses(name, `${field}.resourceNames[${index}]`));
    if (names.indexOf(name) < index) causes.push(duplicate(`${field}.resourceNames[${index}]`, name));
  });
  const operations = texts(rule, 'operations');
  if (operations.length === 0) causes.push(required(`${field}.operations`));
  if (operations.length > 1 && operations.includes('*')) {
    causes.push(
      invalid(`${field}.operations`, goFieldValue(operations), "if '*' is present, must not specify other operations"),
    );
  }
  operations.forEach((operation, index) => {
    if (!OPERATIONS.includes(operation))
      causes.push(unsupportedValue(`${field}.operations[${index}]`, operation, OPERATIONS));
  });
  for (const [key, what] of [
    ['apiGroups', 'API groups'],
    ['apiVersions', 'API versions'],
  ] as const) {
    const values = texts(rule, key);
    if (values.length === 0) causes.push(required(`${field}.${key}`));
    if (values.length > 1 && values.includes('*')) {
      causes.push(
        invalid(`${field}.${key}`, goFieldValue(values), `if '*' is present, must not specify other ${what}`),
      );
    }
  }
  texts(rule, 'apiVersions').forEach((version, index) => {
    if (version === '') causes.push(required(`${field}.apiVersions[${index}]`));
  });
  causes.push(...resourceCauses(texts(rule, 'resources'), `${field}.resources`));
  const scope = rule.scope;
  if (typeof scope === 'string' && !['*', 'Cluster', 'Namespaced'].includes(scope)) {
    causes.push(unsupportedValue(`${field}.scope`, scope, ['*', 'Cluster', 'Namespaced']));
  }
  return causes;
}

/** validateMatchResources: the match policy, both selectors and the rules. */
function matchResourcesCauses(match: JsonObject, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const policy = match.matchPolicy;
  if (policy === undefined) causes.push(required(`${field}.matchPolicy`));
  else if (!['Equivalent', 'Exact'].includes(text(policy))) {
    causes.push(unsupportedValue(`${field}.matchPolicy`, text(policy), ['Equivalent', 'Exact']));
  }
  for (const selector of ['namespaceSelector', 'objectSelector']) {
    const value = objectAt(match, selector);
    if (value) causes.push(...labelSelectorCauses(value, `${field}.${selector}`));
    else causes.push(required(`${field}.${selector}`));
  }
  for (const rules of ['resourceRules', 'excludeResourceRules']) {
    objects(match, rules).forEach((rule, index) => causes.push(...ruleCauses(rule, `${field}.${rules}[${index}]`)));
  }
  return causes;
}

/** validateParamKind: an apiVersion of a DNS group and a DNS-1035 version, a kind. */
function paramKindCauses(paramKind: JsonObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const apiVersion = text(paramKind.apiVersion);
  if (apiVersion === '') causes.push(required('spec.paramKind.apiVersion'));
  else if (apiVersion.split('/').length > 2) {
    causes.push(
      invalid('spec.paramKind.apiVersion', JSON.stringify(apiVersion), `unexpected GroupVersion string: ${apiVersion}`),
    );
  } else if (apiVersion.endsWith('/') || !apiVersion.split('/').pop()) {
    causes.push(invalid('spec.paramKind.apiVersion', JSON.stringify(apiVersion), 'version must be specified'));
  }
  if (text(paramKind.kind) === '') causes.push(required('spec.paramKind.kind'));
  return causes;
}

const FAILURE_POLICIES = ['Fail', 'Ignore'];
const REASONS = ['Forbidden', 'Invalid', 'RequestEntityTooLarge'];
const CEL_IDENTIFIER = /^[_a-zA-Z][_a-zA-Z0-9]*$/;
const CEL_RESERVED = new Set(
  'true false null in as break const continue else for function if import let loop package namespace return var void while'.split(
    ' ',
  ),
);

/** Names and expressions of the matchConditions and variables (their compilation is compile.ts's). */
function namedExpressionCauses(spec: JsonObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const conditions = objects(spec, 'matchConditions');
  if (conditions.length > 64) {
    causes.push({
      reason: 'FieldValueTooMany',
      field: 'spec.matchConditions',
      message: `Too many: ${conditions.length}: must have at most 64 items`,
    });
  }
  const seen = new Set<string>();
  conditions.forEach((condition, index) => {
    const field = `spec.matchConditions[${index}]`;
    const name = text(condition.name);
    if (text(condition.expression).trim() === '') causes.push(required(`${field}.expression`));
    if (name === '') causes.push(required(`${field}.name`));
    else {
      causes.push(...qualifiedNameCauses(name, `${field}.name`));
      if (seen.has(name)) causes.push(duplicate(`${field}.name`, name));
      seen.add(name);
    }
  });
  objects(spec, 'variables').forEach((variable, index) => {
    const field = `spec.variables[${index}]`;
    const name = text(variable.name);
    if (name.trim() === '') causes.push(required(`${field}.name`, 'name is not specified'));
    else if (!CEL_IDENTIFIER.test(name) || CEL_RESERVED.has(name)) {
      causes.push(invalid(`${field}.name`, JSON.stringify(name), 'must be a valid CEL identifier'));
    }
    if (text(variable.expression).trim() === '')
      causes.push(required(`${field}.expression`, 'expression is not specified'));
  });
  return causes;
}

/** The validations' messages and reasons, and the audit annotations' keys. */
function validationCauses(name: string, spec: JsonObject): StatusCause[] {
  const validations = objects(spec, 'validations');
  const annotations = objects(spec, 'auditAnnotations');
  if (validations.length === 0 && annotations.length === 0) {
    const why = 'validations or auditAnnotations must contain at least one item';
    return [required('spec.validations', why), required('spec.auditAnnotations', why)];
  }
  const causes: StatusCause[] = [];
  validations.forEach((validation, index) => {
    const field = `spec.validations[${index}]`;
    if (text(validation.expression).trim() === '')
      causes.push(required(`${field}.expression`, 'expression is not specified'));
    const messageExpression = text(validation.messageExpression);
    if (messageExpression.length > 0 && messageExpression.trim() === '') {
      causes.push(
        invalid(`${field}.messageExpression`, JSON.stringify(messageExpression), 'must be non-empty if specified'),
      );
    }
    const message = text(validation.message);
    if (message.length > 0 && message.trim() === '') {
      causes.push(invalid(`${field}.message`, JSON.stringify(message), 'must be non-empty if specified'));
    } else if (/[\n\r]/.test(message.trim())) {
      causes.push(invalid(`${field}.message`, JSON.stringify(message), 'message must not contain line breaks'));
    }
    if (typeof validation.reason === 'string' && !REASONS.includes(validation.reason)) {
      causes.push(unsupportedValue(`${field}.reason`, validation.reason, REASONS));
    }
  });
  if (annotations.length > 20) {
    causes.push(invalid('spec.auditAnnotations', '[...]', 'must not have more than 20 auditAnnotations'));
  }
  const keys = new Set<string>();
  annotations.forEach((annotation, index) => {
    const field = `spec.auditAnnotations[${index}]`;
    const key = text(annotation.key);
    if (name === '') causes.push(invalid(`${field}.key`, JSON.stringify(key), 'requires metadata.name be non-empty'));
    else causes.push(...qualifiedNameCauses(`${name}/${key}`, `${field}.key`));
    if (keys.has(key)) causes.push(duplicate(`${field}.key`, key));
    keys.add(key);
    const value = text(annotation.valueExpression).trim();
    if (value === '') causes.push(required(`${field}.valueExpression`, 'valueExpression is not specified'));
    else if (value.length > 5 * 1024) {
      causes.push(required(`${field}.valueExpression`, 'must not exceed 5120 bytes in length'));
    }
  });
  return causes;
}

/** ValidateValidatingAdmissionPolicy's spec checks. */
export function policyCauses(policy: JsonObject): StatusCause[] {
  const spec = objectAt(policy, 'spec') ?? {};
  const causes: StatusCause[] = [];
  const failurePolicy = spec.failurePolicy;
  if (failurePolicy === undefined) causes.push(required('spec.failurePolicy'));
  else if (!FAILURE_POLICIES.includes(text(failurePolicy))) {
    causes.push(unsupportedValue('spec.failurePolicy', text(failurePolicy), FAILURE_POLICIES));
  }
  const paramKind = objectAt(spec, 'paramKind');
  if (paramKind) causes.push(...paramKindCauses(paramKind));
  const match = objectAt(spec, 'matchConstraints');
  if (!match) causes.push(required('spec.matchConstraints'));
  else {
    causes.push(...matchResourcesCauses(match, 'spec.matchConstraints'));
    if (objects(match, 'resourceRules').length === 0) causes.push(required('spec.matchConstraints.resourceRules'));
  }
  causes.push(...namedExpressionCauses(spec));
  causes.push(...validationCauses(text(objectAt(policy, 'metadata')?.name), spec));
  causes.push(...compilePolicy(spec).causes);
  return causes;
}

const ACTIONS = ['Audit', 'Deny', 'Warn'];

/**
 * validateValidationActions: known, not both Deny and Warn, at least one (a repeated action is the
 * schema's to report: the list is a set).
 */
function actionCauses(actions: Json[]): StatusCause[] {
  const causes: StatusCause[] = [];
  const seen = new Set<string>();
  actions.map(text).forEach((action, index) => {
    if (!ACTIONS.includes(action)) causes.push(unsupportedValue(`spec.validationActions[${index}]`, action, ACTIONS));
    seen.add(action);
  });
  if (seen.has('Deny') && seen.has('Warn')) {
    causes.push(
      invalid(
        'spec.validationActions',
        goFieldValue(actions.map(text)),
        'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
      ),
    );
  }
  if (seen.size === 0) causes.push(required('spec.validationActions'));
  return causes;
}

/** validateParamRef: a name or a selector (not both), and what to do without a parameter. */
function paramRefCauses(paramRef: JsonObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const name = text(paramRef.name);
  const selector = objectAt(paramRef, 'selector');
  const exclusive = (field: string): StatusCause => ({
    reason: 'FieldValueForbidden',
    field,
    message: 'Forbidden: name and selector are mutually exclusive',
  });
  if (name !== '') {
    causes.push(...pathSegmentCauses(name, 'spec.paramRef.name'));
    if (selector) causes.push(exclusive('spec.paramRef.name'));
  }
  if (selector) {
    causes.push(...labelSelectorCauses(selector, 'spec.paramRef.selector'));
    if (name !== '') causes.push(exclusive('spec.paramRef.selector'));
  }
  if (name === '' && !selector) causes.push(required('spec.paramRef', 'one of name or selector must be specified'));
  const action = text(paramRef.parameterNotFoundAction);
  if (action === '') causes.push(required('spec.paramRef.parameterNotFoundAction'));
  else if (action !== 'Deny' && action !== 'Allow') {
    causes.push(unsupportedValue('spec.paramRef.parameterNotFoundAction', action, ['Deny', 'Allow']));
  }
  return causes;
}

/** ValidateValidatingAdmissionPolicyBinding's spec checks. */
export function bindingCauses(binding: JsonObject): StatusCause[] {
  const spec = objectAt(binding, 'spec') ?? {};
  const causes: StatusCause[] = [];
  const policyName = text(spec.policyName);
  if (policyName === '') causes.push(required('spec.policyName'));
  else causes.push(...dnsSubdomainCauses(policyName, 'spec.policyName'));
  const paramRef = objectAt(spec, 'paramRef');
  if (paramRef) causes.push(...paramRefCauses(paramRef));
  const match = objectAt(spec, 'matchResources');
  if (match) causes.push(...matchResourcesCauses(match, 'spec.matchResources'));
  causes.push(...actionCauses(arrayAt(spec, 'validationActions') ?? []));
  return causes;
}
