import { forbidden } from '../api/status.js';
import { clusterRoles, roles } from '../resources/builtins/rbac.js';
import type { ResourceDef } from '../resources/types.js';
import type { Store } from '../storage/store.js';
import { arrayAt, isObject, objectAt, stringAt, type JsonObject } from '../util/json.js';
import type { RbacAuthorizer } from './rbac.js';
import type { User } from './tokens.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** A rule as rbac's BreakdownRule leaves it: one verb, and one group, resource (and name) or one URL. */
interface Atom {
  verb: string;
  group?: string;
  resource?: string;
  name?: string;
  url?: string;
}

const strings = (rule: JsonObject, key: string): string[] =>
  (arrayAt(rule, key) ?? []).filter((item): item is string => typeof item === 'string');

function breakdown(rule: JsonObject): Atom[] {
  const atoms: Atom[] = [];
  const names = strings(rule, 'resourceNames');
  for (const group of strings(rule, 'apiGroups')) {
    for (const resource of strings(rule, 'resources')) {
      for (const verb of strings(rule, 'verbs')) {
        if (names.length === 0) atoms.push({ verb, group, resource });
        else for (const name of names) atoms.push({ verb, group, resource, name });
      }
    }
  }
  for (const url of strings(rule, 'nonResourceURLs'))
    for (const verb of strings(rule, 'verbs')) atoms.push({ verb, url });
  return atoms;
}

/** rbac's ruleCovers, for one atom. */
function covers(owner: JsonObject, atom: Atom): boolean {
  const verbs = strings(owner, 'verbs');
  if (!verbs.includes('*') && !verbs.includes(atom.verb)) return false;
  if (atom.url !== undefined) {
    return strings(owner, 'nonResourceURLs').some(
      (url) => url === atom.url || (url.endsWith('*') && atom.url!.startsWith(url.replace(/\*+$/, ''))),
    );
  }
  const groups = strings(owner, 'apiGroups');
  if (!groups.includes('*') && !groups.includes(atom.group!)) return false;
  const resources = strings(owner, 'resources');
  const subresource = atom.resource!.includes('/') ? `*/${atom.resource!.split('/').slice(1).join('/')}` : undefined;
  if (
    !resources.includes('*') &&
    !resources.includes(atom.resource!) &&
    !(subresource && resources.includes(subresource))
  ) {
    return false;
  }
  const names = strings(owner, 'resourceNames');
  return names.length === 0 || (atom.name !== undefined && names.includes(atom.name));
}

/** `{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}`: rbac's CompactString. */
function compactString(atoms: Atom[]): string {
  const [first] = atoms as [Atom];
  const quoted = (values: string[]): string => `[${values.map((value) => JSON.stringify(value)).join(' ')}]`;
  const parts = [
    first.group !== undefined ? `APIGroups:${quoted([first.group])}` : '',
    first.resource !== undefined ? `Resources:${quoted([first.resource])}` : '',
    first.url !== undefined ? `NonResourceURLs:${quoted([first.url])}` : '',
    first.name !== undefined ? `ResourceNames:${quoted([first.name])}` : '',
    `Verbs:${quoted(atoms.map(({ verb }) => verb))}`,
  ];
  return `{${parts.filter(Boolean).join(', ')}}`;
}

/** Go's PolicyRule.String(), by which rbac sorts the missing rules. */
const sortKey = (atoms: Atom[]): string => {
  const [first] = atoms as [Atom];
  const list = (value: string | undefined): string => (value === undefined ? '' : value);
  return `&PolicyRule{Verbs:[${atoms.map(({ verb }) => verb).join(' ')}],APIGroups:[${list(first.group)}],Resources:[${list(first.resource)}],ResourceNames:[${list(first.name)}],NonResourceURLs:[${list(first.url)}],}`;
};

/** The atoms of `rules` the owner's rules do not cover, compacted as rbac's CompactRules does (verbs merged). */
function notHeld(rules: JsonObject[], owner: JsonObject[]): string[] {
  const missing = rules.flatMap(breakdown).filter((atom) => !owner.some((rule) => covers(rule, atom)));
  const compacted = new Map<string, Atom[]>();
  for (const atom of missing) {
    const simple = atom.url === undefined && atom.name === undefined;
    const key = simple ? `${atom.group}\n${atom.resource}` : JSON.stringify(atom);
    compacted.set(key, [...(compacted.get(key) ?? []), atom]);
  }
  return [...compacted.values()].sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : 1)).map(compactString);
}

/**
 * kube-apiserver's RBAC escalation checks on writes of roles and bindings: a user may write a role
 * (or bind one) only with every permission it grants, unless allowed to `escalate` (or `bind`) it.
 */
export function escalationCheck(
  authorizer: RbacAuthorizer,
  store: Store,
): (user: User, resource: ResourceDef, namespace: string | undefined, object: JsonObject) => void {
  return (user, resource, namespace, object) => {
    if (resource.group !== RBAC_GROUP || resource.crdName !== undefined) return;
    const name = stringAt(objectAt(object, 'metadata'), 'name');
    const isRole = resource.kind === 'Role' || resource.kind === 'ClusterRole';
    let rules: JsonObject[];
    if (isRole) {
      const escalate = { verb: 'escalate', group: RBAC_GROUP, resource: resource.plural, namespace, name };
      if (authorizer.allows(user, escalate)) return;
      rules = (arrayAt(object, 'rules') ?? []).filter(isObject);
    } else {
      const ref = objectAt(object, 'roleRef');
      const clusterRole = ref?.kind === 'ClusterRole';
      const roleName = stringAt(ref, 'name') ?? '';
      const bind = {
        verb: 'bind',
        group: RBAC_GROUP,
        resource: clusterRole ? 'clusterroles' : 'roles',
        namespace,
        name: roleName,
      };
      if (authorizer.allows(user, bind)) return;
      const role = clusterRole
        ? store.get(clusterRoles.storageKey, undefined, roleName)
        : store.get(roles.storageKey, namespace, roleName);
      rules = (arrayAt(role, 'rules') ?? []).filter(isObject);
    }
    const owner = authorizer.rulesOf(user, namespace).rules.map(({ rule }) => rule);
    const missing = user.groups.includes('system:masters') ? [] : notHeld(rules, owner);
    if (missing.length === 0) return;
    const groups = `[${user.groups.map((group) => JSON.stringify(group)).join(' ')}]`;
    throw forbidden(
      resource,
      name,
      `user ${JSON.stringify(user.name)} (groups=${groups}) is attempting to grant RBAC permissions not currently held:\n${missing.join('\n')}`,
    );
  };
}
