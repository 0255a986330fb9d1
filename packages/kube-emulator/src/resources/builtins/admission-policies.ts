import {
  atomicList,
  integer,
  keyedList,
  kindSchema,
  object,
  setList,
  string,
  stringMap,
  timestamp,
} from '../../schema/builders.js';
import type { Schema } from '../../schema/types.js';
import { ageColumn, column, countOf, nameColumn } from '../../table/columns.js';
import { objectAt, stringAt, text, type JsonObject } from '../../util/json.js';
import type { ResourceDef } from '../types.js';
import { bindingCauses, policyCauses } from './admission-policy-validation.js';
import { defineBuiltin } from './define.js';

const GROUP = 'admissionregistration.k8s.io';

const strings = (description: string): Schema => atomicList(description, string('An item.'));

const labelSelector = (description: string): Schema => ({
  ...object(description, {
    matchLabels: stringMap('matchLabels is a map of {key,value} pairs.'),
    matchExpressions: atomicList(
      'matchExpressions is a list of label selector requirements. The requirements are ANDed.',
      object('A label selector requirement.', {
        key: string('key is the label key that the selector applies to.'),
        operator: string("operator represents a key's relationship to a set of values."),
        values: strings('values is an array of string values.'),
      }),
    ),
  }),
  'x-kubernetes-map-type': 'atomic',
});

const rules = (description: string): Schema =>
  atomicList(
    description,
    object(
      'NamedRuleWithOperations is a tuple of Operations and Resources with ResourceNames.',
      {
        resourceNames: strings('ResourceNames is an optional white list of names that the rule applies to.'),
        operations: strings('Operations is the operations the admission hook cares about.'),
        apiGroups: strings('APIGroups is the API groups the resources belong to.'),
        apiVersions: strings('APIVersions is the API versions the resources belong to.'),
        resources: strings('Resources is a list of resources this rule applies to.'),
        scope: string('scope specifies the scope of this rule.', { default: '*' }),
      },
      { 'x-kubernetes-map-type': 'atomic' },
    ),
  );

/** MatchResources, with kube-apiserver's defaults (Equivalent, empty selectors). */
const matchResources = (description: string): Schema =>
  object(
    description,
    {
      namespaceSelector: {
        ...labelSelector('NamespaceSelector decides whether to run the policy based on the namespace.'),
        default: {},
      },
      objectSelector: {
        ...labelSelector('ObjectSelector decides whether to run the policy based on the object labels.'),
        default: {},
      },
      resourceRules: rules(
        'ResourceRules describes what operations on what resources/subresources the policy matches.',
      ),
      excludeResourceRules: rules(
        'ExcludeResourceRules describes what operations on what resources/subresources the policy should not care about.',
      ),
      matchPolicy: string('matchPolicy defines how the "MatchResources" list is used to match incoming requests.', {
        default: 'Equivalent',
      }),
    },
    { 'x-kubernetes-map-type': 'atomic' },
  );

const namedExpression = (description: string): Schema =>
  object(
    description,
    {
      name: string('Name is an identifier for this expression.'),
      expression: string('Expression is the CEL expression.'),
    },
    { 'x-kubernetes-map-type': 'atomic' },
  );

/**
 * admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy: validated as kube-apiserver validates
 * it (its expressions compiled), enforced by admission/policies/. Its status is nobody's here: the
 * type-checking controller runs in kube-controller-manager, which the emulator does not play.
 */
export const validatingAdmissionPolicies: ResourceDef = defineBuiltin({
  group: GROUP,
  version: 'v1',
  plural: 'validatingadmissionpolicies',
  kind: 'ValidatingAdmissionPolicy',
  namespaced: false,
  categories: ['api-extensions'],
  tracksGeneration: true,
  statusSubresource: true,
  schema: kindSchema('ValidatingAdmissionPolicy describes the definition of an admission validation policy.', {
    spec: object('Specification of the desired behavior of the ValidatingAdmissionPolicy.', {
      paramKind: object(
        'ParamKind specifies the kind of resources used to parameterize this policy.',
        {
          apiVersion: string('APIVersion is the API group version the resources belong to.'),
          kind: string('Kind is the API kind the resources belong to.'),
        },
        { 'x-kubernetes-map-type': 'atomic' },
      ),
      matchConstraints: matchResources(
        'MatchConstraints specifies what resources this policy is designed to validate.',
      ),
      validations: atomicList(
        'Validations contain CEL expressions which is used to apply the validation.',
        object('Validation specifies the CEL expression which is used to apply the validation.', {
          expression: string('Expression represents the expression which will be evaluated by CEL.'),
          message: string('Message represents the message displayed when validation fails.'),
          reason: string('Reason represents a machine-readable description of why this validation failed.'),
          messageExpression: string('messageExpression declares a CEL expression that evaluates to the message.'),
        }),
      ),
      failurePolicy: string('failurePolicy defines how to handle failures for the admission policy.', {
        default: 'Fail',
      }),
      auditAnnotations: atomicList(
        'auditAnnotations contains CEL expressions which are used to produce audit annotations.',
        object('AuditAnnotation describes how to produce an audit annotation for an API request.', {
          key: string('key specifies the audit annotation key.'),
          valueExpression: string('valueExpression represents the expression which is evaluated by CEL.'),
        }),
      ),
      matchConditions: keyedList(
        'MatchConditions is a list of conditions that must be met for a request to be validated.',
        'name',
        namedExpression(
          'MatchCondition represents a condition which must by fulfilled for a request to be sent to a webhook.',
        ),
      ),
      variables: keyedList(
        'Variables contain definitions of variables that can be used in composition of other expressions.',
        'name',
        namedExpression('Variable is the definition of a variable that is used for composition.'),
      ),
    }),
    status: object('The status of the ValidatingAdmissionPolicy.', {
      observedGeneration: integer('The generation observed by the controller.', { format: 'int64' }),
      typeChecking: object('The results of type checking for each expression.', {
        expressionWarnings: atomicList(
          'The type checking warnings for each expression.',
          object('ExpressionWarning is a warning information that targets a specific expression.', {
            fieldRef: string('The path to the field that refers the expression.'),
            warning: string('The content of type checking information in a human-readable form.'),
          }),
        ),
      }),
      conditions: keyedList(
        "The conditions represent the latest available observations of a policy's current state.",
        'type',
        object('Condition contains details for one aspect of the current state of this API Resource.', {
          type: string('type of condition in CamelCase or in foo.example.com/CamelCase.'),
          status: string('status of the condition, one of True, False, Unknown.'),
          observedGeneration: integer('observedGeneration represents the .metadata.generation.', { format: 'int64' }),
          lastTransitionTime: timestamp('lastTransitionTime is the last time the condition transitioned.'),
          reason: string('reason contains a programmatic identifier indicating the reason for the last transition.'),
          message: string('message is a human readable message indicating details about the transition.'),
        }),
      ),
    }),
  }),
  columns: [
    nameColumn(),
    column(
      'Validations',
      'integer',
      'Validations indicates the number of validation rules defined in this configuration',
      (o) => countOf(objectAt(o, 'spec')?.validations),
    ),
    column('ParamKind', 'string', 'ParamKind specifies the kind of resources used to parameterize this policy', (o) => {
      const paramKind = objectAt(objectAt(o, 'spec'), 'paramKind');
      return paramKind ? `${text(paramKind.apiVersion)}/${text(paramKind.kind)}` : '<unset>';
    }),
    ageColumn,
  ],
  strategy: {
    // As kube-apiserver's PrepareForCreate: a new policy's status is empty.
    initialize: (policy) => {
      policy.status = {};
    },
    validate: policyCauses,
  },
});

/** `ns/name`, `*` /name or the selector, as kubectl's PARAMREF column shows a binding's parameter. */
function paramRefCell(binding: JsonObject): string {
  const paramRef = objectAt(objectAt(binding, 'spec'), 'paramRef');
  if (!paramRef) return '<unset>';
  const name = stringAt(paramRef, 'name') ?? '';
  if (name !== '') return `${stringAt(paramRef, 'namespace') || '*'}/${name}`;
  const matchLabels = objectAt(objectAt(paramRef, 'selector'), 'matchLabels') ?? {};
  return Object.entries(matchLabels)
    .map(([key, value]) => `${key}=${text(value)}`)
    .join(',');
}

/** admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBinding. */
export const validatingAdmissionPolicyBindings: ResourceDef = defineBuiltin({
  group: GROUP,
  version: 'v1',
  plural: 'validatingadmissionpolicybindings',
  kind: 'ValidatingAdmissionPolicyBinding',
  namespaced: false,
  categories: ['api-extensions'],
  tracksGeneration: true,
  schema: kindSchema(
    'ValidatingAdmissionPolicyBinding binds the ValidatingAdmissionPolicy with paramerized resources.',
    {
      spec: object('Specification of the desired behavior of ValidatingAdmissionPolicyBinding.', {
        policyName: string('PolicyName references a ValidatingAdmissionPolicy name which the binding is bound to.'),
        paramRef: object(
          'paramRef specifies the parameter resource used to configure the admission control policy.',
          {
            name: string('name is the name of the resource being referenced.'),
            namespace: string('namespace is the namespace of the referenced resource.'),
            selector: labelSelector('selector can be used to match multiple param objects based on their labels.'),
            parameterNotFoundAction: string('parameterNotFoundAction controls the behavior of the binding.'),
          },
          { 'x-kubernetes-map-type': 'atomic' },
        ),
        matchResources: matchResources('MatchResources declares what resources match this binding.'),
        validationActions: setList(
          'validationActions declares how Validations of the referenced ValidatingAdmissionPolicy are enforced.',
          string('A validation action.'),
        ),
      }),
    },
  ),
  columns: [
    nameColumn(),
    column(
      'PolicyName',
      'string',
      'PolicyName indicates the policy definition which the policy binding binded to',
      (o) => objectAt(o, 'spec')?.policyName ?? '',
    ),
    column(
      'ParamRef',
      'string',
      'ParamRef indicates the param resource which sets the configuration param',
      paramRefCell,
    ),
    ageColumn,
  ],
  strategy: { validate: bindingCauses },
});
