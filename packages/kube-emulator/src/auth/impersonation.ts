import type { IncomingMessage } from 'node:http';
import { PlainTextError } from '../api/status.js';
import { forbiddenRequest, type RbacAuthorizer, type ResourceRequest } from './rbac.js';
import { ANONYMOUS, SERVICE_ACCOUNT_PREFIX, type User } from './tokens.js';

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

/** Go's `%v` of an ObjectReference: its seven fields, space-separated, in braces. */
const goReference = (reference: Impersonation): string =>
  `{${[reference.kind, reference.namespace, reference.name, '', reference.apiVersion, '', reference.fieldPath].join(' ')}}`;

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
 * kube-apiserver's impersonation filter: the `Impersonate-User`, `-Group`, `-Uid` and `-Extra-*`
 * headers make the request act as another user, when the requester may `impersonate` each of them
 * (checked in that order, refused with the first one it may not). Groups, extras and uid need a
 * user (500 otherwise, in plain text as kube-apiserver answers it). Without RBAC everyone may.
 */
export function impersonate(request: IncomingMessage, requester: User, authorizer: RbacAuthorizer | undefined): User {
  const asked = impersonations(request);
  if (asked.length === 0) return requester;
  if (!asked.some(({ kind }) => kind === 'User' || kind === 'ServiceAccount')) {
    throw new PlainTextError(
      500,
      'InternalError',
      `Internal Server Error: ${JSON.stringify(request.url ?? '')}: requested [${asked.map(goReference).join(' ')}] without impersonating a user\n`,
    );
  }
  const groupsGiven = asked.some(({ kind }) => kind === 'Group');
  let name = '';
  let uid = '';
  const groups: string[] = [];
  const extra: Record<string, string[]> = {};
  for (const impersonation of asked) {
    const attributes = attributesOf(impersonation);
    const decision = authorizer?.decide(requester, attributes) ?? { allowed: true, reason: '' };
    if (!decision.allowed) throw forbiddenRequest(requester, attributes, decision.reason);
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
  // Everyone but the anonymous user is authenticated, unless a group says otherwise.
  const anonymous = name === ANONYMOUS.name;
  const implicit = anonymous ? 'system:unauthenticated' : 'system:authenticated';
  const explicit = anonymous ? ['system:unauthenticated'] : ['system:authenticated', 'system:unauthenticated'];
  if (!groups.some((group) => explicit.includes(group))) groups.push(implicit);
  return { name, uid, groups, ...(Object.keys(extra).length > 0 ? { extra } : {}) };
}
