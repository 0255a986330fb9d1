import { API_VERSION, LABEL_VALUE, compilePattern, type AWSAccountBinding } from '@keymaster/api';
import type { IdentityObject } from '@keymaster/identity';

/**
 * Before AWSAccountBinding, the first identity of a tenant that resolved into an account claimed it for
 * its tenant: the controller wrote these two annotations on it. Each such claim is converted once into
 * the account's binding (the identity reconciler), after which the annotations are removed.
 */
export const CLAIMED_ACCOUNT = 'keymaster.dev/claimed-account';
export const CLAIMED_AT = 'keymaster.dev/claimed-at';
/** Written by the platform on the claiming identity: tenants (comma-separated) that shared its account. */
export const SHARED_WITH = 'keymaster.dev/account-shared-with';
/** On a binding converted from a claim: the identity that claimed the account, and when. */
export const CONVERTED_FROM = 'keymaster.dev/converted-from-claim';

export interface LegacyClaim {
  /** The identity whose claim owned the account: the earliest claim among identities of a tenant. */
  owner: IdentityObject;
  /** Its tenant, then those the platform shared the account with: who could act in it. */
  tenants: string[];
  claimedAt: string | undefined;
}

const link = (identity: IdentityObject): string => `${identity.kind}/${identity.metadata.name ?? ''}`;
const annotation = (identity: IdentityObject, key: string): string | undefined => identity.metadata.annotations?.[key];

/** The claim that owned `accountId` before bindings, decided as the earlier release did; undefined if none. */
export function legacyClaim(
  accountId: string,
  identities: readonly IdentityObject[],
  tenantLabel: string,
): LegacyClaim | undefined {
  const claims = identities.filter(
    (identity) =>
      annotation(identity, CLAIMED_ACCOUNT) === accountId && identity.metadata.labels?.[tenantLabel] !== undefined,
  );
  const order = (identity: IdentityObject) => `${annotation(identity, CLAIMED_AT) ?? '~'} ${link(identity)}`;
  const owner = claims.sort((a, b) => (order(a) < order(b) ? -1 : 1))[0];
  if (!owner) return undefined;
  // A shared-with entry that is no label value could never have matched a tenant: it is left out.
  const shared = (annotation(owner, SHARED_WITH) ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => compilePattern(LABEL_VALUE).test(name) && name.length <= 63);
  return {
    owner,
    tenants: [...new Set([owner.metadata.labels![tenantLabel]!, ...shared])],
    claimedAt: annotation(owner, CLAIMED_AT),
  };
}

/** The AWSAccountBinding a claim becomes: the same tenants, and where it came from (the conversion, observable). */
export function convertedBinding(accountId: string, claim: LegacyClaim): AWSAccountBinding {
  return {
    apiVersion: API_VERSION,
    kind: 'AWSAccountBinding',
    metadata: {
      name: accountId,
      annotations: { [CONVERTED_FROM]: `${link(claim.owner)} claimed it at ${claim.claimedAt ?? 'an unknown time'}` },
    },
    spec: { tenants: claim.tenants },
  };
}
