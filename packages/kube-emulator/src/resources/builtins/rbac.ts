import type { StatusCause } from '../../api/status.js';
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

const policyRule = object(
  'PolicyRule holds information that describes a policy rule.',
  {
    verbs: strings('Verbs is a list of Verbs that apply to ALL the ResourceKinds contained in this rule.'),
    apiGroups: strings('APIGroups is the name of the APIGroup that contains the resources.'),
    resources: strings('Resources is a list of resources this rule applies to.'),
    resourceNames: strings('ResourceNames is an optional white list of names that the rule applies to.'),
    nonResourceURLs: strings('NonResourceURLs is a set of partial urls that a user should have access to.'),
  },
  { required: ['verbs'] },
);

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

const roleRef = (kinds: string[]): Schema =>
  object(
    'RoleRef can only reference a ClusterRole in the global namespace, or a Role in the same namespace.',
    {
      apiGroup: string('APIGroup is the group for the resource being referenced.', { enum: [GROUP] }),
      kind: string('Kind is the type of resource being referenced.', { enum: kinds }),
      name: string('Name is the name of resource being referenced.'),
    },
    { required: ['apiGroup', 'kind', 'name'], 'x-kubernetes-map-type': 'atomic' },
  );

const nameCauses = (object: JsonObject): StatusCause[] =>
  pathSegmentCauses(objectAt(object, 'metadata')?.name, 'metadata.name');

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
    strategy: { validate: nameCauses, validatesName: true },
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

/** As the apiserver validates bindings: roleRef never changes, and a ClusterRoleBinding names its ServiceAccounts' namespaces. */
function bindingCauses(binding: JsonObject, old: JsonObject | undefined, namespaced: boolean): StatusCause[] {
  const causes = nameCauses(binding);
  if (old && !deepEqual(binding.roleRef, old.roleRef)) {
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'roleRef',
      message: `Invalid value: ${JSON.stringify(binding.roleRef)}: cannot change roleRef`,
    });
  }
  (arrayAt(binding, 'subjects') ?? []).forEach((item, index) => {
    if (!namespaced && isObject(item) && item.kind === 'ServiceAccount' && !stringAt(item, 'namespace')) {
      causes.push({ reason: 'FieldValueRequired', field: `subjects[${index}].namespace`, message: 'Required value' });
    }
  });
  return causes;
}

const binding = (kind: string, namespaced: boolean, roleKinds: string[]): ResourceDef =>
  rbacKind(kind, namespaced, {
    schema: kindSchema(
      `${kind} references a role, but does not contain it.`,
      {
        subjects: atomicList('Subjects holds references to the objects the role applies to.', subject),
        roleRef: roleRef(roleKinds),
      },
      ['roleRef'],
    ),
    columns: [
      nameColumn(),
      column('Role', 'string', 'The role the binding grants', roleOf),
      ageColumn,
      column('Users', 'string', 'The users bound', (o) => subjectsOf(o, 'User'), 1),
      column('Groups', 'string', 'The groups bound', (o) => subjectsOf(o, 'Group'), 1),
      column('ServiceAccounts', 'string', 'The service accounts bound', (o) => subjectsOf(o, 'ServiceAccount'), 1),
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
export const clusterRoleBindings = binding('ClusterRoleBinding', false, ['ClusterRole']);
export const roleBindings = binding('RoleBinding', true, ['Role', 'ClusterRole']);

export const rbacResources: ResourceDef[] = [clusterRoles, roles, clusterRoleBindings, roleBindings];
