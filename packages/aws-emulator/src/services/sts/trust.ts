import type { ConditionContext } from '../../iam/conditions.js';
import type { OidcProvider } from '../../oidc/provider.js';
import type { Principal, Role } from '../../world/directory.js';

/** What a role's trust policy says about one AssumeRole call. */
export interface TrustVerdict {
  /** Some trust statement lets this caller, with this ExternalId, assume the role (and tag the session if asked). */
  readonly trusted: boolean;
  /**
   * The matching statement names this very caller (a user, or an exact role session) in the role's own
   * account: as in IAM, such a resource-based grant needs no identity-based permission besides it.
   */
  readonly namesCaller: boolean;
}

export function judgeTrust(
  role: Role,
  caller: Principal,
  externalId: string | undefined,
  tagging: boolean,
): TrustVerdict {
  let trusted = false;
  let namesCaller = false;
  for (const statement of role.trust) {
    if (statement.principal === undefined || !principalMatches(statement.principal, caller)) continue;
    if (statement.externalId !== undefined && statement.externalId !== externalId) continue;
    if (tagging && !(statement.actions ?? []).includes('sts:TagSession')) continue;
    trusted = true;
    namesCaller ||= caller.accountId === role.accountId && statement.principal === caller.arn;
  }
  return { trusted, namesCaller };
}

/**
 * Whether a role's trust policy lets tokens of this OIDC provider assume it: a statement naming the
 * provider as its federated principal, allowing sts:AssumeRoleWithWebIdentity, whose conditions hold for
 * the token's claims (`<host/path>:sub`, `:aud`).
 */
export function trustsWebIdentity(role: Role, provider: OidcProvider, context: ConditionContext): boolean {
  return role.trust.some(
    (statement) =>
      statement.federated === provider.arn &&
      (statement.actions ?? []).includes('sts:AssumeRoleWithWebIdentity') &&
      statement.compiledConditions.every((condition) => condition.test(context)),
  );
}

function principalMatches(principal: string, caller: Principal): boolean {
  if (principal === '*') return true;
  if (principal === caller.accountId || principal === `arn:aws:iam::${caller.accountId}:root`) return true;
  if (principal === caller.arn) return true;
  return caller.kind === 'assumed-role' && principal === caller.role.arn;
}
