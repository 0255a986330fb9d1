import { CAPA_GROUP, GROUP, KINDS } from '@keymaster/api';

const NAMESPACED = new Set(KINDS.filter(({ scope }) => scope === 'Namespaced').map(({ kind }) => kind));

/**
 * Whether a kind's identities live in a namespace (AWSServiceAccountIdentity): a reference to one is
 * looked up in the asking namespace only, so no other namespace can name it.
 */
export const isNamespacedKind = (kind: string): boolean => NAMESPACED.has(kind);

/** The API group of an identity object: CAPA's (its apiVersion says so) or Keymaster's. */
export const groupOf = (identity: { apiVersion?: string }): string =>
  identity.apiVersion?.startsWith(`${CAPA_GROUP}/`) ? CAPA_GROUP : GROUP;

/** A reference's group, Keymaster's when it names none. */
export const refGroup = (ref: { apiGroup?: string | undefined }): string => ref.apiGroup ?? GROUP;

/**
 * One identity's id wherever identities are keyed (dependencies, sightings, deletions): `Kind/name`,
 * `Kind/namespace/name` for a namespaced kind, so that two tenants' identities of one name never share
 * one, and `Kind.group/name` for another group's (CAPA's kinds have the names of Keymaster's), so that
 * CAPA's `AWSClusterRoleIdentity/x` and Keymaster's are two identities.
 */
export const identityId = (kind: string, name: string, namespace: string | undefined, apiGroup = GROUP): string => {
  if (apiGroup !== GROUP) return `${kind}.${apiGroup}/${name}`;
  return isNamespacedKind(kind) ? `${kind}/${namespace ?? ''}/${name}` : `${kind}/${name}`;
};
