import { PrincipalUsageAllowedReason, type AWSAccountBinding } from '@keymaster/api';
import type { IdentityObject } from '@keymaster/identity';
import { legacyClaim } from '../awsclusteridentity/legacy-account-claim.js';

/** Why a cluster's own identity may not act in the account it resolved into (condition reasons). */
export type AccountRefusal =
  typeof PrincipalUsageAllowedReason.AccountNotBound | typeof PrincipalUsageAllowedReason.AccountOfAnotherTenant;

export type AccountVerdict = { allowed: true } | { allowed: false; reason: AccountRefusal; message: string };

const link = (identity: IdentityObject): string => `${identity.kind}/${identity.metadata.name ?? ''}`;

/**
 * Whether an identity of `tenant` may act in `accountId`, given the tenants the platform bound to that
 * account (`undefined`: none declared). Decided by the platform alone, so no order of tenants' actions
 * changes it. The message is the condition's and the event's, which the tenant reads: it names what the
 * platform must declare, and no other tenant.
 */
export function accountVerdict(
  identity: IdentityObject,
  tenant: string,
  accountId: string,
  bound: readonly string[] | undefined,
): AccountVerdict {
  if (bound?.includes(tenant)) return { allowed: true };
  const who = `${link(identity)} (tenant ${tenant}) resolves into AWS account ${accountId}`;
  if (bound === undefined)
    return {
      allowed: false,
      reason: PrincipalUsageAllowedReason.AccountNotBound,
      message:
        `${who}, which the platform has bound to no tenant: nothing is tagged with it. If the account is ` +
        `${tenant}'s, the platform declares it: an AWSAccountBinding named ${accountId} with ${tenant} in spec.tenants.`,
    };
  return {
    allowed: false,
    reason: PrincipalUsageAllowedReason.AccountOfAnotherTenant,
    message:
      `${who}, which the platform has bound to other tenants, not ${tenant}: nothing is tagged with it. If the ` +
      `identity points at the wrong account, the platform fixes ${link(identity)}; if the account is shared on ` +
      `purpose, it adds ${tenant} to spec.tenants of AWSAccountBinding ${accountId}.`,
  };
}

/**
 * The tenants bound to an account: its AWSAccountBinding's (none listed: bound to no tenant); while an
 * earlier release's claim of the account is not yet converted into a binding, that claim's.
 */
export const boundTenants = (
  binding: AWSAccountBinding | undefined,
  accountId: string,
  identities: readonly IdentityObject[],
  tenantLabel: string,
): readonly string[] | undefined =>
  binding ? (binding.spec.tenants ?? []) : legacyClaim(accountId, identities, tenantLabel)?.tenants;
