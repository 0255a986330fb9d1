import type { IdentityObject } from '@keymaster/identity';

/**
 * The account an identity of a tenant resolves into belongs to that tenant. The memory is on the
 * claiming identity itself, written by the controller: identities are written by the platform only
 * (never by tenants, docs/security.md), and annotations travel with `clusterctl move` and survive restarts.
 */
export const CLAIMED_ACCOUNT = 'keymaster.dev/claimed-account';
/** When the claim was made (RFC 3339): the earliest claim of an account wins, whatever the objects' ages. */
export const CLAIMED_AT = 'keymaster.dev/claimed-at';
/** Written by the platform on the claiming identity: tenants (comma-separated) that may use the account too. */
export const SHARED_WITH = 'keymaster.dev/account-shared-with';

export type Ownership =
  /** The identity carries no tenant label: it belongs to the platform and claims nothing. */
  | { verdict: 'Unowned' }
  /** Nobody claims the account yet: the identity claims it for its tenant (annotations to write). */
  | { verdict: 'Claim'; annotations: Record<string, string> }
  | { verdict: 'Owned' }
  /** Another tenant's identity claims it and does not share it. */
  | { verdict: 'Claimed'; owner: IdentityObject; message: string };

const link = (identity: IdentityObject): string => `${identity.kind}/${identity.metadata.name ?? ''}`;
const annotation = (identity: IdentityObject, key: string): string | undefined => identity.metadata.annotations?.[key];

/** The identity that owns `accountId`: the earliest claim among identities of a tenant. */
function ownerOf(accountId: string, identities: readonly IdentityObject[], tenantLabel: string) {
  const claims = identities.filter(
    (identity) =>
      annotation(identity, CLAIMED_ACCOUNT) === accountId && identity.metadata.labels?.[tenantLabel] !== undefined,
  );
  const order = (identity: IdentityObject) => `${annotation(identity, CLAIMED_AT) ?? '~'} ${link(identity)}`;
  return claims.sort((a, b) => (order(a) < order(b) ? -1 : 1))[0];
}

/** Whether `identity` (a cluster's own identity, which resolved into `accountId`) may act in that account. */
export function accountOwnership(
  identity: IdentityObject,
  accountId: string,
  identities: readonly IdentityObject[],
  tenantLabel: string,
  now: Date,
): Ownership {
  const tenant = identity.metadata.labels?.[tenantLabel];
  if (tenant === undefined) return { verdict: 'Unowned' };
  const owner = ownerOf(accountId, identities, tenantLabel);
  if (!owner)
    return { verdict: 'Claim', annotations: { [CLAIMED_ACCOUNT]: accountId, [CLAIMED_AT]: now.toISOString() } };
  const ownerTenant = owner.metadata.labels?.[tenantLabel] ?? '';
  const shared = (annotation(owner, SHARED_WITH) ?? '').split(',').map((name) => name.trim());
  if (ownerTenant === tenant || shared.includes(tenant)) return { verdict: 'Owned' };
  return {
    verdict: 'Claimed',
    owner,
    message:
      `${link(identity)} (tenant ${tenant}) resolves into account ${accountId}, which ${link(owner)} (tenant ` +
      `${ownerTenant}) claimed: an account belongs to one tenant, so nothing is tagged with it. If the account is ` +
      `shared on purpose, the platform adds ${tenant} to the annotation ${SHARED_WITH} of ${link(owner)}.`,
  };
}
