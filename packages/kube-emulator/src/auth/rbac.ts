import { ApiError, forbidden } from '../api/status.js';
import { clusterRoleBindings, clusterRoles, roleBindings, roles } from '../resources/builtins/rbac.js';
import type { Store } from '../storage/store.js';
import { arrayAt, isObject, objectAt, stringAt, type Json, type JsonObject } from '../util/json.js';
import { BOOTSTRAP_GRANTS } from './bootstrap-policy.js';
import { SERVICE_ACCOUNT_PREFIX, type User } from './tokens.js';

/** What RBAC decides on: a resource request's verb, group, resource, subresource, namespace and name. */
export interface ResourceRequest {
  verb: string;
  group: string;
  resource: string;
  subresource?: string | undefined;
  namespace?: string | undefined;
  name?: string | undefined;
}

/** Members of this group pass every check, as on kube-apiserver. */
const MASTERS = 'system:masters';

const strings = (object: JsonObject, key: string): string[] =>
  (arrayAt(object, key) ?? []).filter((item): item is string => typeof item === 'string');

/** Whether one PolicyRule grants the request (rbac/v1 `RuleAllows`: verbs, groups, resources, names). */
function ruleAllows(rule: JsonObject, request: ResourceRequest): boolean {
  const verbs = strings(rule, 'verbs');
  const groups = strings(rule, 'apiGroups');
  const resources = strings(rule, 'resources');
  const names = strings(rule, 'resourceNames');
  const combined = request.subresource ? `${request.resource}/${request.subresource}` : request.resource;
  return (
    (verbs.includes('*') || verbs.includes(request.verb)) &&
    (groups.includes('*') || groups.includes(request.group)) &&
    resources.some(
      (resource) =>
        resource === '*' ||
        resource === combined ||
        (request.subresource !== undefined && resource === `*/${request.subresource}`),
    ) &&
    (names.length === 0 || (request.name !== undefined && names.includes(request.name)))
  );
}

/** Whether a binding's subject is this user: by name, by group, or as `system:serviceaccount:<ns>:<name>`. */
function subjectIs(subject: Json, user: User, bindingNamespace: string | undefined): boolean {
  if (!isObject(subject)) return false;
  const name = stringAt(subject, 'name');
  switch (subject.kind) {
    case 'User':
      return name === user.name;
    case 'Group':
      return name !== undefined && user.groups.includes(name);
    case 'ServiceAccount':
      return (
        user.name === `${SERVICE_ACCOUNT_PREFIX}${stringAt(subject, 'namespace') ?? bindingNamespace ?? ''}:${name}`
      );
    default:
      return false;
  }
}

/** rbac/v1 `NonResourceURLMatches`: `*`, the path itself, or a prefix ending in `*`. */
const urlMatches = (rule: JsonObject, path: string): boolean =>
  strings(rule, 'nonResourceURLs').some(
    (url) => url === '*' || url === path || (url.endsWith('*') && path.startsWith(url.replace(/\*+$/, ''))),
  );

/**
 * kube-apiserver's RBAC authorizer over the stored roles and bindings: a request is allowed when a
 * ClusterRoleBinding, or a RoleBinding of the request's namespace, binds the user (by name, group or
 * ServiceAccount) to a role with a rule that grants it, or a bootstrap grant does (bootstrap-policy.ts).
 * Nothing is denied explicitly; aggregated ClusterRoles are not assembled (their own rules count).
 */
export class RbacAuthorizer {
  constructor(private readonly store: Store) {}

  allows(user: User, request: ResourceRequest): boolean {
    if (user.groups.includes(MASTERS)) return true;
    return this.#rules(user, request.namespace).some((rule) => ruleAllows(rule, request));
  }

  /** A request for a path that is no resource: only ClusterRoleBindings grant these (`nonResourceURLs`). */
  allowsPath(user: User, verb: string, path: string): boolean {
    if (user.groups.includes(MASTERS)) return true;
    return this.#rules(user, undefined).some(
      (rule) => urlMatches(rule, path) && strings(rule, 'verbs').some((allowed) => allowed === '*' || allowed === verb),
    );
  }

  /** The rules of every role bound to the user, cluster-wide and in `namespace`, the bootstrap grants first. */
  #rules(user: User, namespace: string | undefined): JsonObject[] {
    const bootstrap = BOOTSTRAP_GRANTS.filter(({ group }) => user.groups.includes(group)).flatMap(({ rules }) => rules);
    const bindings = [
      ...this.#list(clusterRoleBindings.storageKey, undefined),
      ...(namespace === undefined ? [] : this.#list(roleBindings.storageKey, namespace)),
    ];
    const bound = bindings.flatMap((binding) => {
      const bindingNamespace = stringAt(objectAt(binding, 'metadata'), 'namespace');
      if (!(arrayAt(binding, 'subjects') ?? []).some((subject) => subjectIs(subject, user, bindingNamespace)))
        return [];
      const ref = objectAt(binding, 'roleRef');
      const role =
        ref?.kind === 'Role' && bindingNamespace !== undefined
          ? this.store.get(roles.storageKey, bindingNamespace, stringAt(ref, 'name') ?? '')
          : ref?.kind === 'ClusterRole'
            ? this.store.get(clusterRoles.storageKey, undefined, stringAt(ref, 'name') ?? '')
            : undefined;
      return (arrayAt(role, 'rules') ?? []).filter(isObject);
    });
    return [...bootstrap, ...bound];
  }

  #list(storageKey: string, namespace: string | undefined): JsonObject[] {
    return [...this.store.list(storageKey, namespace)].map(([, object]) => object);
  }
}

/** The 403 of a path request, worded as kube-apiserver words it. */
export const forbiddenPath = (user: User, verb: string, path: string): ApiError =>
  new ApiError(403, 'Forbidden', `forbidden: User "${user.name}" cannot ${verb} path "${path}"`, {});

/** The 403 kube-apiserver answers, worded as it words it. */
export function forbiddenRequest(user: User, request: ResourceRequest): ApiError {
  const resource = request.subresource ? `${request.resource}/${request.subresource}` : request.resource;
  const scope = request.namespace === undefined ? 'at the cluster scope' : `in the namespace "${request.namespace}"`;
  return forbidden(
    { group: request.group, plural: request.resource },
    request.name,
    `User "${user.name}" cannot ${request.verb} resource "${resource}" in API group "${request.group}" ${scope}`,
  );
}
