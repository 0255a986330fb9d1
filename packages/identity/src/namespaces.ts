import type { AllowedNamespaces, IdentityObject, LabelSelector } from '@keymaster/api';
import { isNamespacedKind } from './identity-id.js';

export interface NamespaceInfo {
  name: string;
  labels: Record<string, string>;
}

/**
 * Whether an identity lets a namespace use it: a namespaced identity its own namespace only (it has
 * no allowedNamespaces), any other as its allowedNamespaces says.
 */
export function identityAllows(identity: IdentityObject, namespace: NamespaceInfo): boolean {
  if (isNamespacedKind(identity.kind)) return identity.metadata.namespace === namespace.name;
  const { allowedNamespaces } = identity.spec as { allowedNamespaces?: AllowedNamespaces | null };
  return namespaceAllowed(allowedNamespaces, namespace);
}

/**
 * Whether an identity's allowedNamespaces lets a namespace use it.
 * - absent (or null): no namespace;
 * - `{}` (no field set): every namespace;
 * - otherwise: the namespace is in `list`, or matches `selector`; a field that is present but empty
 *   (`list: []`, `selector: {}`) allows nothing through that field.
 */
export function namespaceAllowed(allowed: AllowedNamespaces | null | undefined, namespace: NamespaceInfo): boolean {
  if (allowed === null || allowed === undefined) return false;
  const { list, selector } = allowed;
  if (list === undefined && selector === undefined) return true;
  return (
    (list?.includes(namespace.name) ?? false) || (selector !== undefined && selectorMatches(selector, namespace.labels))
  );
}

/** A label selector with no requirement selects nothing here: an empty selector must not mean "everyone". */
export function selectorMatches(selector: LabelSelector, labels: Record<string, string>): boolean {
  const matchLabels = Object.entries(selector.matchLabels ?? {});
  const expressions = selector.matchExpressions ?? [];
  if (matchLabels.length === 0 && expressions.length === 0) return false;
  return (
    matchLabels.every(([key, value]) => labels[key] === value) &&
    expressions.every(({ key, operator, values = [] }) => {
      const present = Object.hasOwn(labels, key);
      switch (operator) {
        case 'In':
          return present && values.includes(labels[key]!);
        case 'NotIn':
          return !present || !values.includes(labels[key]!);
        case 'Exists':
          return present;
        case 'DoesNotExist':
          return !present;
      }
    })
  );
}
