import type { IncomingMessage } from 'node:http';
import { badRequest } from '../api/status.js';
import { goStringSlice } from '../util/go-format.js';
import { forbiddenRequest, type RbacAuthorizer, type ResourceRequest } from './rbac.js';
import { ANONYMOUS, SERVICE_ACCOUNT_PREFIX, type User } from './tokens.js';

const NODE_PREFIX = 'system:node:';

/** One thing a request asks to act as, as kube-apiserver builds them (a v1.ObjectReference). */
interface Impersonation {
  kind: 'ServiceAccount' | 'User' | 'Group' | 'UserExtra' | 'UID';
  namespace: string;
  name: string;
  apiVersion: string;
  fieldPath: string;
}

const AUTHENTICATION = 'authentication.k8s.io/v1';
const EXTRA_PREFIX = 'impersonate-extra-';

/** Go's `%#v` of the user.DefaultInfo the headers ask for (map keys sorted, as Go prints them). */
function goUserInfo(wanted: Impersonation[]): string {
  const named = (kind: Impersonation['kind']): string[] =>
    wanted.filter((impersonation) => impersonation.kind === kind).map(({ name }) => name);
  const groups = named('Group');
  const extra = new Map<string, string[]>();
  for (const { kind, fieldPath, name } of wanted)
    if (kind === 'UserExtra') extra.set(fieldPath, [...(extra.get(fieldPath) ?? []), name]);
  const extras = [...extra.keys()].sort().map((key) => `${JSON.stringify(key)}:${goStringSlice(extra.get(key)!)}`);
  return (
    `&user.DefaultInfo{Name:"", UID:${JSON.stringify(named('UID')[0] ?? '')}, ` +
    `Groups:${groups.length > 0 ? goStringSlice(groups) : '[]string(nil)'}, ` +
    `Extra:${extras.length > 0 ? `map[string][]string{${extras.join(', ')}}` : 'map[string][]string(nil)'}}`
  );
}

/** `%2F` and the like in an extra's key, as Go's url.PathUnescape reads them (kept as is when malformed). */
function unescapeKey(key: string): string {
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}

/** buildImpersonationRequests: the user (a ServiceAccount when named as one), groups, extras, uid. */
function impersonations(request: IncomingMessage): Impersonation[] {
  const headers = request.headersDistinct;
  const first = (name: string): string => headers[name]?.[0] ?? '';
  const found: Impersonation[] = [];
  const reference = (kind: Impersonation['kind'], name: string, extra: Partial<Impersonation> = {}): Impersonation => ({
    kind,
    namespace: '',
    name,
    apiVersion: '',
    fieldPath: '',
    ...extra,
  });
  const user = first('impersonate-user');
  if (user !== '') {
    const account = user.startsWith(SERVICE_ACCOUNT_PREFIX) ? user.slice(SERVICE_ACCOUNT_PREFIX.length).split(':') : [];
    found.push(
      account.length === 2 && account[0] !== '' && account[1] !== ''
        ? reference('ServiceAccount', account[1]!, { namespace: account[0]! })
        : reference('User', user),
    );
  }
  for (const group of headers['impersonate-group'] ?? []) found.push(reference('Group', group));
  for (const [header, values] of Object.entries(headers)) {
    if (!header.startsWith(EXTRA_PREFIX) || !values) continue;
    const key = unescapeKey(header.slice(EXTRA_PREFIX.length));
    for (const value of values) {
      found.push(reference('UserExtra', value, { apiVersion: AUTHENTICATION, fieldPath: key }));
    }
  }
  const uid = first('impersonate-uid');
  if (uid !== '') found.push(reference('UID', uid, { apiVersion: AUTHENTICATION }));
  return found;
}

/** What RBAC is asked for one impersonation: the verb `impersonate` on users, groups, serviceaccounts, uids or userextras/KEY. */
function attributesOf(impersonation: Impersonation): ResourceRequest {
  const resource = {
    ServiceAccount: 'serviceaccounts',
    User: 'users',
    Group: 'groups',
    UserExtra: 'userextras',
    UID: 'uids',
  }[impersonation.kind];
  return {
    verb: 'impersonate',
    group: impersonation.apiVersion === '' ? '' : 'authentication.k8s.io',
    resource,
    ...(impersonation.kind === 'UserExtra' ? { subresource: impersonation.fieldPath } : {}),
    ...(impersonation.namespace ? { namespace: impersonation.namespace } : {}),
    name: impersonation.name,
  };
}

/**
 * The constrained impersonation mode (1.37, KEP-5284) that applies to the user asked for: a
 * ServiceAccount's or a node's when only a user name is asked for, `user-info` for any other user.
 */
function constrainedMode(wanted: Impersonation[]): string | undefined {
  const onlyUser = wanted.length === 1;
  const [first] = wanted;
  if (first?.kind === 'ServiceAccount') return onlyUser ? 'serviceaccount' : undefined;
  if (first?.kind !== 'User') return undefined;
  if (!first.name.startsWith(NODE_PREFIX) || first.name === NODE_PREFIX) return 'user-info';
  return onlyUser ? 'arbitrary-node' : undefined;
}

/** Requesters whose impersonation last succeeded (in the only mode emulated, `impersonate`), per authorizer. */
const legacyRequesters = new WeakMap<RbacAuthorizer, Set<string>>();

/**
 * kube-apiserver's impersonation filter: the `Impersonate-User`, `-Group`, `-Uid` and `-Extra-*`
 * headers make the request act as another user, when the requester may `impersonate` each of them
 * (checked in that order). Groups, extras and uid need a user (400). Without RBAC everyone may.
 *
 * A refusal is worded as 1.37's constrained impersonation words it: it tries first the mode that last
 * succeeded for the requester, then each mode that applies, and reports the first refusal. So a
 * requester whose impersonation never succeeded, asking for a user a constrained mode applies to, is
 * refused `impersonate-on:<mode>:<verb>` on `resource` (what the request asks for); any other is
 * refused the first `impersonate` it lacks (so too a request for a non-resource path). Constrained
 * impersonation's grants (`impersonate:<mode>` and `impersonate-on:...`) are not emulated.
 */
export function impersonate(
  request: IncomingMessage,
  requester: User,
  authorizer: RbacAuthorizer | undefined,
  resource?: ResourceRequest,
): User {
  const wanted = impersonations(request);
  if (wanted.length === 0) return requester;
  if (!wanted.some(({ kind }) => kind === 'User' || kind === 'ServiceAccount')) {
    throw badRequest(`requested ${goUserInfo(wanted)} without impersonating a user name`);
  }
  const groupsGiven = wanted.some(({ kind }) => kind === 'Group');
  let name = '';
  let uid = '';
  const groups: string[] = [];
  const extra: Record<string, string[]> = {};
  const succeeded = authorizer ? legacyRequesters.get(authorizer) : undefined;
  const mode = succeeded?.has(requester.name) ? undefined : constrainedMode(wanted);
  for (const impersonation of wanted) {
    const attributes = attributesOf(impersonation);
    const decision = authorizer?.decide(requester, attributes) ?? { allowed: true, reason: '' };
    if (!decision.allowed) {
      throw resource && mode
        ? forbiddenRequest(requester, { ...resource, verb: `impersonate-on:${mode}:${resource.verb}` })
        : forbiddenRequest(requester, attributes, decision.reason);
    }
    switch (impersonation.kind) {
      case 'ServiceAccount':
        name = `${SERVICE_ACCOUNT_PREFIX}${impersonation.namespace}:${impersonation.name}`;
        if (!groupsGiven) groups.push('system:serviceaccounts', `system:serviceaccounts:${impersonation.namespace}`);
        break;
      case 'User':
        name = impersonation.name;
        break;
      case 'Group':
        groups.push(impersonation.name);
        break;
      case 'UserExtra':
        (extra[impersonation.fieldPath] ??= []).push(impersonation.name);
        break;
      case 'UID':
        uid = impersonation.name;
    }
  }
  if (authorizer) legacyRequesters.set(authorizer, (succeeded ?? new Set()).add(requester.name));
  // Everyone but the anonymous user is authenticated, unless a group says otherwise.
  const anonymous = name === ANONYMOUS.name;
  const implicit = anonymous ? 'system:unauthenticated' : 'system:authenticated';
  const explicit = anonymous ? ['system:unauthenticated'] : ['system:authenticated', 'system:unauthenticated'];
  if (!groups.some((group) => explicit.includes(group))) groups.push(implicit);
  return { name, uid, groups, ...(Object.keys(extra).length > 0 ? { extra } : {}) };
}
