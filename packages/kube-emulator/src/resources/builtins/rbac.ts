import { unsupportedValue, type StatusCause } from '../../api/status.js';
import { goFieldValue, goJson } from '../../util/go-format.js';
import { atomicList, free, kindSchema, object, string } from '../../schema/builders.js';
import type { Schema } from '../../schema/types.js';
import { ageColumn, column, createdAtColumn, nameColumn } from '../../table/columns.js';
import { arrayAt, deepEqual, isObject, objectAt, stringAt, type JsonObject } from '../../util/json.js';
import { pathSegmentCauses } from '../names.js';
import type { ResourceDef } from '../types.js';
import { defineBuiltin, type BuiltinSpec } from './define.js';

/** RBAC objects; requests are authorized against them only with `authorization: 'RBAC'` (auth/rbac.ts). */
const GROUP = 'rbac.authorization.k8s.io';

const strings = (description: string): Schema => atomicList(description, string('An item.'));

const policyRule = object('PolicyRule holds information that describes a policy rule.', {
  verbs: strings('Verbs is a list of Verbs that apply to ALL the ResourceKinds contained in this rule.'),
  apiGroups: strings('APIGroups is the name of the APIGroup that contains the resources.'),
  resources: strings('Resources is a list of resources this rule applies to.'),
  resourceNames: strings('ResourceNames is an optional white list of names that the rule applies to.'),
  nonResourceURLs: strings('NonResourceURLs is a set of partial urls that a user should have access to.'),
});

const rules = atomicList('Rules holds all the PolicyRules for this role.', policyRule);

const subject = object(
  'Subject contains a reference to the object or user identities a role binding applies to.',
  {
    kind: string('Kind of object being referenced.', { enum: ['ServiceAccount', 'User', 'Group'] }),
    apiGroup: string('APIGroup holds the API group of the referenced subject.'),
    name: string('Name of the object being referenced.'),
    namespace: string('Namespace of the referenced object.'),
  },
  { required: ['kind', 'name'] },
);

/** Checked by bindingCauses in kube-apiserver's words; apiGroup defaults to rbac's. */
const roleRef: Schema = object(
  'RoleRef can only reference a ClusterRole in the global namespace, or a Role in the same namespace.',
  {
    apiGroup: string('APIGroup is the group for the resource being referenced.', { default: GROUP }),
    kind: string('Kind is the type of resource being referenced.'),
    name: string('Name is the name of resource being referenced.'),
  },
  { 'x-kubernetes-map-type': 'atomic', default: {} },
);

const nameCauses = (object: JsonObject): StatusCause[] =>
  pathSegmentCauses(objectAt(object, 'metadata')?.name, 'metadata.name');

const required = (field: string, why = ''): StatusCause => ({
  reason: 'FieldValueRequired',
  field,
  message: why ? `Required value: ${why}` : 'Required value',
});

/** rbac's ValidatePolicyRule: verbs always; URLs only cluster-wide and never with resources; else groups and resources. */
function ruleCauses(role: JsonObject, namespaced: boolean): StatusCause[] {
  const causes = nameCauses(role);
  (arrayAt(role, 'rules') ?? []).forEach((rule, index) => {
    const list = (key: string): string[] => (isObject(rule) ? (arrayAt(rule, key) ?? []).map(String) : []);
    const path = `rules[${index}]`;
    // 1.37 words it as its declarative validation does: no detail.
    if (list('verbs').length === 0) causes.push(required(`${path}.verbs`));
    const urls = list('nonResourceURLs');
    if (urls.length > 0) {
      const invalidUrls = (why: string): StatusCause => ({
        reason: 'FieldValueInvalid',
        field: `${path}.nonResourceURLs`,
        message: `Invalid value: ${goFieldValue(urls)}: ${why}`,
      });
      if (namespaced) causes.push(invalidUrls('namespaced rules cannot apply to non-resource URLs'));
      if (list('apiGroups').length > 0 || list('resources').length > 0 || list('resourceNames').length > 0) {
        causes.push(invalidUrls('rules cannot apply to both regular resources and non-resource URLs'));
      }
      return;
    }
    if (list('apiGroups').length === 0) {
      causes.push(required(`${path}.apiGroups`, 'resource rules must supply at least one api group'));
    }
    if (list('resources').length === 0) {
      causes.push(required(`${path}.resources`, 'resource rules must supply at least one resource'));
    }
  });
  return causes;
}

/** The four kinds differ only in scope, schema, columns and checks. */
const rbacKind = (kind: string, namespaced: boolean, rest: Pick<BuiltinSpec, 'schema' | 'columns' | 'strategy'>) =>
  defineBuiltin({ group: GROUP, version: 'v1', plural: `${kind.toLowerCase()}s`, kind, namespaced, ...rest });

const role = (kind: string, namespaced: boolean, extra: Record<string, Schema> = {}): ResourceDef =>
  rbacKind(kind, namespaced, {
    schema: kindSchema(`${kind} is a logical grouping of PolicyRules that can be referenced as a unit.`, {
      rules,
      ...extra,
    }),
    columns: [nameColumn(), createdAtColumn],
    strategy: { validate: (object) => ruleCauses(object, namespaced), validatesName: true },
  });

/** `kind/name` of a binding's role, and the subjects of one kind, as kubectl prints them. */
const roleOf = (binding: JsonObject): string => {
  const ref = objectAt(binding, 'roleRef');
  return ref ? `${stringAt(ref, 'kind') ?? ''}/${stringAt(ref, 'name') ?? ''}` : '';
};
const subjectsOf = (binding: JsonObject, kind: string): string =>
  (arrayAt(binding, 'subjects') ?? [])
    .filter((item): item is JsonObject => isObject(item) && item.kind === kind)
    .map(
      (item) =>
        (kind === 'ServiceAccount' ? `${stringAt(item, 'namespace') ?? ''}/` : '') + (stringAt(item, 'name') ?? ''),
    )
    .join(', ');

/** The internal rbac.RoleRef as json.Marshal writes it: its fields have no JSON names. */
const goRoleRef = (ref: JsonObject | undefined): string =>
  goJson({
    APIGroup: stringAt(ref, 'apiGroup') ?? '',
    Kind: stringAt(ref, 'kind') ?? '',
    Name: stringAt(ref, 'name') ?? '',
  });

/**
 * As the apiserver validates bindings: a roleRef to a kind the binding may name (a RoleBinding a
 * Role or ClusterRole, a ClusterRoleBinding a ClusterRole), with a name, that never changes; and a
 * ClusterRoleBinding names its ServiceAccounts' namespaces.
 */
function bindingCauses(binding: JsonObject, old: JsonObject | undefined, namespaced: boolean): StatusCause[] {
  const causes = nameCauses(binding);
  const ref = objectAt(binding, 'roleRef');
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (stringAt(ref, 'apiGroup') !== GROUP)
    causes.push(unsupportedValue('roleRef.apiGroup', stringAt(ref, 'apiGroup') ?? '', [GROUP]));
  if (!kinds.includes(stringAt(ref, 'kind') ?? ''))
    causes.push(unsupportedValue('roleRef.kind', stringAt(ref, 'kind') ?? '', kinds));
  if (!stringAt(ref, 'name')) causes.push(required('roleRef.name'));
  if (old && !deepEqual(binding.roleRef, old.roleRef)) {
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'roleRef',
      message: `Invalid value: ${goRoleRef(ref)}: field is immutable`,
    });
  }
  (arrayAt(binding, 'subjects') ?? []).forEach((item, index) => {
    if (!namespaced && isObject(item) && item.kind === 'ServiceAccount' && !stringAt(item, 'namespace')) {
      causes.push({ reason: 'FieldValueRequired', field: `subjects[${index}].namespace`, message: 'Required value' });
    }
  });
  return causes;
}

const binding = (kind: string, namespaced: boolean): ResourceDef =>
  rbacKind(kind, namespaced, {
    schema: kindSchema(`${kind} references a role, but does not contain it.`, {
      subjects: atomicList('Subjects holds references to the objects the role applies to.', subject),
      roleRef,
    }),
    columns: [
      nameColumn(),
      column(
        'Role',
        'string',
        namespaced
          ? 'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.'
          : 'RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.',
        roleOf,
      ),
      ageColumn,
      column(
        'Users',
        'string',
        `Users in the ${namespaced ? 'roleBinding' : 'clusterRoleBinding'}`,
        (o) => subjectsOf(o, 'User'),
        1,
      ),
      column(
        'Groups',
        'string',
        `Groups in the ${namespaced ? 'roleBinding' : 'clusterRoleBinding'}`,
        (o) => subjectsOf(o, 'Group'),
        1,
      ),
      column(
        'ServiceAccounts',
        'string',
        `ServiceAccounts in the ${namespaced ? 'roleBinding' : 'clusterRoleBinding'}`,
        (o) => subjectsOf(o, 'ServiceAccount'),
        1,
      ),
    ],
    strategy: { validate: (object, old) => bindingCauses(object, old, namespaced), validatesName: true },
  });

export const clusterRoles = role('ClusterRole', false, {
  aggregationRule: object('AggregationRule describes how to build the rules for this ClusterRole.', {
    clusterRoleSelectors: atomicList(
      'A list of selectors which will be used to find ClusterRoles and create the rules.',
      free('A label selector.'),
    ),
  }),
});
export const roles = role('Role', true);
export const clusterRoleBindings = binding('ClusterRoleBinding', false);
export const roleBindings = binding('RoleBinding', true);

export const rbacResources: ResourceDef[] = [clusterRoles, roles, clusterRoleBindings, roleBindings];
