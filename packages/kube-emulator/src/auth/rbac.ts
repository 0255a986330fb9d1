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

/** A rule and where it comes from, as RBAC's reasons describe it. */
interface SourcedRule {
  rule: JsonObject;
  /** `RoleBinding "b/ns" of Role "r" to User "u"`; absent for the bootstrap grants. */
  source?: string;
}

/** What RBAC decided: allowed (and by what), or not (and the roles it could not resolve). */
export interface Decision {
  allowed: boolean;
  /** `RBAC: allowed by ...`, or `rbac: RBAC: role.rbac.authorization.k8s.io "x" not found` for a refusal. */
  reason: string;
}

/** rbac's describeSubject: a ServiceAccount as `name/namespace`, others by name. */
function describeSubject(subject: JsonObject, bindingNamespace: string | undefined): string {
  const name = stringAt(subject, 'name') ?? '';
  const shown =
    subject.kind === 'ServiceAccount' ? `${name}/${stringAt(subject, 'namespace') || bindingNamespace || ''}` : name;
  return `${stringAt(subject, 'kind') ?? ''} ${JSON.stringify(shown)}`;
}

/** Go's aggregate of errors: one as it is, several as `[a, b]`. */
const aggregate = (errors: string[]): string => (errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`);

/**
 * kube-apiserver's RBAC authorizer over the stored roles and bindings: a request is allowed when a
 * ClusterRoleBinding, or a RoleBinding of the request's namespace, binds the user (by name, group or
 * ServiceAccount) to a role with a rule that grants it, or a bootstrap grant does (bootstrap-policy.ts).
 * Nothing is denied explicitly; aggregated ClusterRoles are not assembled (their own rules count).
 */
export class RbacAuthorizer {
  constructor(private readonly store: Store) {}

  allows(user: User, request: ResourceRequest): boolean {
    return this.decide(user, request).allowed;
  }

  /** The decision with kube-apiserver's reason (SelfSubjectAccessReview shows it; a refusal's message ends with it). */
  decide(user: User, request: ResourceRequest): Decision {
    if (user.groups.includes(MASTERS)) return { allowed: true, reason: '' };
    const { rules, errors } = this.rulesOf(user, request.namespace);
    const granting = rules.find(({ rule }) => ruleAllows(rule, request));
    if (granting) return { allowed: true, reason: granting.source ? `RBAC: allowed by ${granting.source}` : '' };
    // Refused by every authorizer of the chain, the reasons are named after theirs (1.37 on).
    return { allowed: false, reason: errors.length > 0 ? `rbac: RBAC: ${aggregate(errors)}` : '' };
  }

  /** A request for a path that is no resource: only ClusterRoleBindings grant these (`nonResourceURLs`). */
  allowsPath(user: User, verb: string, path: string): boolean {
    if (user.groups.includes(MASTERS)) return true;
    return this.rulesOf(user, undefined).rules.some(
      ({ rule }) =>
        urlMatches(rule, path) && strings(rule, 'verbs').some((allowed) => allowed === '*' || allowed === verb),
    );
  }

  /**
   * The rules of every role bound to the user, cluster-wide and in `namespace` (the bootstrap grants
   * first), and the roles named by those bindings that do not exist.
   */
  rulesOf(user: User, namespace: string | undefined): { rules: SourcedRule[]; errors: string[] } {
    const rules: SourcedRule[] = BOOTSTRAP_GRANTS.filter(
      (grant) => (grant.group !== undefined && user.groups.includes(grant.group)) || grant.user === user.name,
    ).flatMap((grant) => grant.rules.map((rule) => ({ rule, ...(grant.source ? { source: grant.source } : {}) })));
    const errors: string[] = [];
    const bindings = [
      ...this.#list(clusterRoleBindings.storageKey, undefined),
      ...(namespace === undefined ? [] : this.#list(roleBindings.storageKey, namespace)),
    ];
    for (const binding of bindings) {
      const metadata = objectAt(binding, 'metadata');
      const bindingNamespace = stringAt(metadata, 'namespace');
      const subject = (arrayAt(binding, 'subjects') ?? [])
        .filter(isObject)
        .find((candidate) => subjectIs(candidate, user, bindingNamespace));
      if (!subject) continue;
      const ref = objectAt(binding, 'roleRef');
      const roleName = stringAt(ref, 'name') ?? '';
      const role =
        ref?.kind === 'Role' && bindingNamespace !== undefined
          ? this.store.get(roles.storageKey, bindingNamespace, roleName)
          : ref?.kind === 'ClusterRole'
            ? this.store.get(clusterRoles.storageKey, undefined, roleName)
            : undefined;
      if (!role) {
        errors.push(
          `${ref?.kind === 'Role' ? 'role' : 'clusterrole'}.rbac.authorization.k8s.io ${JSON.stringify(roleName)} not found`,
        );
        continue;
      }
      const name = stringAt(metadata, 'name') ?? '';
      const source =
        bindingNamespace === undefined
          ? `ClusterRoleBinding ${JSON.stringify(name)}`
          : `RoleBinding ${JSON.stringify(`${name}/${bindingNamespace}`)}`;
      const described = `${source} of ${stringAt(ref, 'kind') ?? ''} ${JSON.stringify(roleName)} to ${describeSubject(subject, bindingNamespace)}`;
      for (const rule of (arrayAt(role, 'rules') ?? []).filter(isObject)) rules.push({ rule, source: described });
    }
    return { rules, errors };
  }

  #list(storageKey: string, namespace: string | undefined): JsonObject[] {
    return [...this.store.list(storageKey, namespace)].map(([, object]) => object);
  }
}

/** The 403 of a path request, worded as kube-apiserver words it. */
export const forbiddenPath = (user: User, verb: string, path: string): ApiError =>
  new ApiError(403, 'Forbidden', `forbidden: User "${user.name}" cannot ${verb} path "${path}"`, {});

/** The 403 kube-apiserver answers, worded as it words it (with RBAC's reason, when it has one). */
export function forbiddenRequest(user: User, request: ResourceRequest, reason = ''): ApiError {
  const resource = request.subresource ? `${request.resource}/${request.subresource}` : request.resource;
  const scope = request.namespace === undefined ? 'at the cluster scope' : `in the namespace "${request.namespace}"`;
  return forbidden(
    { group: request.group, plural: request.resource },
    request.name,
    `User "${user.name}" cannot ${request.verb} resource "${resource}" in API group "${request.group}" ${scope}${reason ? `: ${reason}` : ''}`,
  );
}
