import { KINDS } from '@keymaster/api';

const NAMESPACED = new Set(KINDS.filter(({ scope }) => scope === 'Namespaced').map(({ kind }) => kind));

/**
 * Whether a kind's identities live in a namespace (AWSServiceAccountIdentity): a reference to one is
 * looked up in the asking namespace only, so no other namespace can name it.
 */
export const isNamespacedKind = (kind: string): boolean => NAMESPACED.has(kind);

/**
 * One identity's id wherever identities are keyed (dependencies, sightings, deletions): `Kind/name`,
 * or `Kind/namespace/name` for a namespaced kind, so that two tenants' identities of one name never share one.
 */
export const identityId = (kind: string, name: string, namespace: string | undefined): string =>
  isNamespacedKind(kind) ? `${kind}/${namespace ?? ''}/${name}` : `${kind}/${name}`;
