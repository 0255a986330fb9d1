import type { StatusCause } from '../api/status.js';
import { age } from '../table/age.js';
import { nameColumn } from '../table/columns.js';
import { compileJsonPath } from '../table/jsonpath.js';
import { arrayAt, isObject, objectAt, stringAt, type Json, type JsonObject, text } from '../util/json.js';
import { validFieldPath } from '../schema/field-path.js';
import { compileRule } from '../schema/cel.js';
import type { Schema, ValidationRule } from '../schema/types.js';
import { goJson } from '../util/go-format.js';
import { toStorageVersion } from './crd-conversion.js';
import { dnsLabelCauses } from './names.js';
import { storageVersionHash, type Column, type ResourceDef } from './types.js';

const required = (field: string): StatusCause => ({ reason: 'FieldValueRequired', field, message: 'Required value' });
const invalid = (field: string, value: Json | undefined, why: string): StatusCause => ({
  reason: 'FieldValueInvalid',
  field,
  message: `Invalid value: ${JSON.stringify(value ?? null)}: ${why}`,
});

/** What the apiserver checks of a CRD itself before serving it. */
export function crdCauses(crd: JsonObject): StatusCause[] {
  const spec = objectAt(crd, 'spec') ?? {};
  const names = objectAt(spec, 'names') ?? {};
  const group = stringAt(spec, 'group');
  const plural = stringAt(names, 'plural');
  const causes: StatusCause[] = [];
  const name = stringAt(objectAt(crd, 'metadata'), 'name');
  if (plural && group && name !== `${plural}.${group}`) {
    causes.push(invalid('metadata.name', name, 'must be spec.names.plural+"."+spec.group'));
  }
  if (!group) causes.push(required('spec.group'));
  else if (!group.includes('.')) causes.push(invalid('spec.group', group, 'should be a domain with at least one dot'));
  if (!plural) causes.push(required('spec.names.plural'));
  else causes.push(...dnsLabelCauses(plural, 'spec.names.plural'));
  if (!stringAt(names, 'kind')) causes.push(required('spec.names.kind'));
  const scope = stringAt(spec, 'scope');
  if (scope !== 'Cluster' && scope !== 'Namespaced') {
    causes.push({
      reason: 'FieldValueNotSupported',
      field: 'spec.scope',
      message: `Unsupported value: ${JSON.stringify(scope ?? '')}: supported values: "Cluster", "Namespaced"`,
    });
  }
  const versions = (arrayAt(spec, 'versions') ?? []).filter(isObject);
  if (versions.length === 0) causes.push(required('spec.versions'));
  const storage = versions.filter((version) => version.storage === true).length;
  if (versions.length > 0 && storage !== 1) {
    causes.push(invalid('spec.versions', null, `must have exactly one version marked as storage version`));
  }
  versions.forEach((version, index) => {
    if (!stringAt(version, 'name')) causes.push(required(`spec.versions[${index}].name`));
    const schema = objectAt(objectAt(version, 'schema'), 'openAPIV3Schema');
    if (!schema) causes.push(required(`spec.versions[${index}].schema.openAPIV3Schema`));
    else if (schema.type !== 'object') {
      causes.push(
        invalid(`spec.versions[${index}].schema.openAPIV3Schema.type`, schema.type, 'must be object at the root'),
      );
    }
  });
  causes.push(...schemaCauses(versions));
  return causes;
}

/** What kube-apiserver checks of the schemas' rules: every fieldPath names a field (x-kubernetes-validations). */
function schemaCauses(versions: JsonObject[]): StatusCause[] {
  const schemas = versions.map((version) => objectAt(objectAt(version, 'schema'), 'openAPIV3Schema'));
  // Versions that share one schema are checked once, as kube-apiserver's internal spec.validation.
  const shared = schemas.every((schema) => JSON.stringify(schema) === JSON.stringify(schemas[0]));
  const roots = shared
    ? [['spec.validation.openAPIV3Schema', schemas[0]] as const]
    : schemas.map((schema, index) => [`spec.versions[${index}].schema.openAPIV3Schema`, schema] as const);
  return roots.flatMap(([path, schema]) => (schema ? ruleCauses(schema as Schema, path) : []));
}

/** A rule as Go prints an apiextensions.ValidationRule (`%#v`), in compile errors. */
/** The internal apiextensions.ValidationRule as json.Marshal writes it: its fields have no JSON names. */
const goRule = (rule: ValidationRule): string =>
  goJson({
    Rule: rule.rule,
    Message: rule.message ?? '',
    MessageExpression: rule.messageExpression ?? '',
    Reason: rule.reason ?? null,
    FieldPath: rule.fieldPath ?? '',
    OptionalOldSelf: rule.optionalOldSelf ?? null,
  });

/** The CEL compiler's complaint about an expression, if any. */
function compileError(expression: string | undefined): string | undefined {
  if (expression === undefined) return undefined;
  try {
    compileRule(expression);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message.split('\n')[0] : String(error);
  }
}

function ruleCauses(schema: Schema, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  // A structural schema types every node that declares fields or items.
  if (schema.type === undefined && schema.properties !== undefined && !schema['x-kubernetes-int-or-string']) {
    causes.push({
      reason: 'FieldValueRequired',
      field: `${path}.type`,
      message: 'Required value: must not be empty for specified object fields',
    });
  }
  if (schema.type === undefined && schema.items !== undefined) {
    causes.push({
      reason: 'FieldValueRequired',
      field: `${path}.type`,
      message: 'Required value: must not be empty for specified array items',
    });
  }
  (schema['x-kubernetes-validations'] ?? []).forEach((rule, index) => {
    const rulePath = `${path}.x-kubernetes-validations[${index}]`;
    const ruleError = compileError(rule.rule);
    if (ruleError !== undefined) {
      causes.push({
        reason: 'FieldValueInvalid',
        field: `${rulePath}.rule`,
        message: `Invalid value: ${goRule(rule)}: compilation failed: ${ruleError}`,
      });
    }
    const messageError = compileError(rule.messageExpression);
    if (messageError !== undefined) {
      causes.push({
        reason: 'FieldValueInvalid',
        field: `${rulePath}.messageExpression`,
        message: `Invalid value: ${goRule(rule)}: messageExpression compilation failed: ${messageError}`,
      });
    }
    if (rule.fieldPath && !validFieldPath(rule.fieldPath, schema)) {
      causes.push(invalid(`${rulePath}.fieldPath`, rule.fieldPath, 'must be a valid path'));
    }
  });
  for (const [key, child] of Object.entries(schema.properties ?? {}))
    causes.push(...ruleCauses(child, `${path}.properties[${key}]`));
  if (schema.items) causes.push(...ruleCauses(schema.items, `${path}.items`));
  if (typeof schema.additionalProperties === 'object')
    causes.push(...ruleCauses(schema.additionalProperties, `${path}.additionalProperties`));
  return causes;
}

const condition = (type: string, reason: string, message: string, old: JsonObject | undefined): JsonObject => {
  const previous = (arrayAt(objectAt(old, 'status'), 'conditions') ?? []).find(
    (item) => isObject(item) && item.type === type && item.status === 'True',
  ) as JsonObject | undefined;
  return {
    type,
    status: 'True',
    lastTransitionTime: stringAt(previous, 'lastTransitionTime') ?? new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    reason,
    message,
  };
};

/** The status the CRD controllers settle on: names accepted, established, terminating while deleted. */
export function crdStatus(crd: JsonObject, old: JsonObject | undefined): JsonObject {
  const spec = objectAt(crd, 'spec') ?? {};
  const names = { ...(objectAt(spec, 'names') ?? {}) };
  names.singular ??= text(names.kind ?? '').toLowerCase();
  names.listKind ??= `${text(names.kind ?? '')}List`;
  const conditions = [
    condition('NamesAccepted', 'NoConflicts', 'no conflicts found', old),
    condition('Established', 'InitialNamesAccepted', 'the initial names have been accepted', old),
  ];
  if (objectAt(crd, 'metadata')?.deletionTimestamp) {
    conditions.push(
      condition('Terminating', 'InstanceDeletionInProgress', 'CustomResource deletion is in progress', old),
    );
  }
  const storage = (arrayAt(spec, 'versions') ?? []).find((version) => isObject(version) && version.storage === true);
  const stored = new Set((arrayAt(objectAt(old, 'status'), 'storedVersions') ?? []).map(String));
  if (isObject(storage) && typeof storage.name === 'string') stored.add(storage.name);
  return { acceptedNames: names, conditions, storedVersions: [...stored] };
}

function printerColumns(version: JsonObject): Column[] {
  const declared = (arrayAt(version, 'additionalPrinterColumns') ?? []).filter(isObject);
  const columns =
    declared.length > 0 ? declared : [{ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' }];
  return [
    nameColumn(),
    ...columns.map((spec): Column => {
      const find = compileJsonPath(text(spec.jsonPath));
      const type = text(spec.type ?? 'string');
      return {
        name: text(spec.name),
        type,
        ...(typeof spec.format === 'string' ? { format: spec.format } : {}),
        description: text(spec.description ?? ''),
        priority: typeof spec.priority === 'number' ? spec.priority : 0,
        cell(object) {
          const [value] = find(object);
          if (value === undefined) return null;
          if (type === 'date') return age(value);
          return isObject(value) || Array.isArray(value) ? JSON.stringify(value) : value;
        },
      };
    }),
  ];
}

/** The resources a CRD serves: one per served version, all stored in one collection. */
export function resourcesOfCrd(crd: JsonObject): ResourceDef[] {
  const spec = objectAt(crd, 'spec') ?? {};
  const names = objectAt(spec, 'names') ?? {};
  const group = text(spec.group);
  const plural = text(names.plural);
  const kind = text(names.kind);
  const storage = (arrayAt(spec, 'versions') ?? []).find((version) => isObject(version) && version.storage === true);
  const storedAs = isObject(storage) ? text(storage.name) : '';
  const schemaOf = (version: JsonObject | undefined): Schema =>
    (objectAt(objectAt(version, 'schema'), 'openAPIV3Schema') as Schema | undefined) ?? { type: 'object' };
  const toStorage = toStorageVersion(objectAt(spec, 'conversion'), {
    apiVersion: `${group}/${storedAs}`,
    kind,
    schema: schemaOf(isObject(storage) ? storage : undefined),
  });
  return (arrayAt(spec, 'versions') ?? [])
    .filter(isObject)
    .filter((version) => version.served !== false)
    .map((version) => ({
      group,
      version: text(version.name),
      plural,
      singular: stringAt(names, 'singular') ?? kind.toLowerCase(),
      kind,
      listKind: stringAt(names, 'listKind') ?? `${kind}List`,
      namespaced: spec.scope === 'Namespaced',
      shortNames: (arrayAt(names, 'shortNames') ?? []).map(String),
      categories: (arrayAt(names, 'categories') ?? []).map(String),
      statusSubresource: isObject(objectAt(version, 'subresources')?.status),
      tracksGeneration: true,
      storageKey: `${plural}.${group}`,
      schema: schemaOf(version),
      columns: printerColumns(version),
      strategy: version.name === storedAs ? {} : { toStorage },
      crdName: `${plural}.${group}`,
      returnsDeletedObject: false,
      strategicMergePatch: false,
      storageVersionHash: storageVersionHash(group, storedAs, kind),
    }));
}
