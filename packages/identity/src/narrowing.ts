import { CredentialFailureReason, IDENTITY_KIND_FACTS, type SessionPolicy } from '@keymaster/api';
import { IdentityError, type LinkName } from './errors.js';
import type { ChainLink } from './providers/provider.js';

const linkName = (link: LinkName) => `${link.kind}/${link.name}`;

/**
 * The identity narrows its own sessions (inlinePolicy, policyARNs). AWS grants a session what any one
 * of its session policies allows, so sending the request's beside them would widen the identity's
 * own narrowing; sending only the request's would drop it. Only a subset of its managed policies is exact.
 */
export class SessionPolicyWouldBroadenError extends IdentityError {
  constructor(link: LinkName) {
    super(
      'ERR_KEYMASTER_SESSION_POLICY_WOULD_BROADEN',
      `${linkName(link)} narrows its sessions with its own inlinePolicy or policyARNs, and AWS grants a session what any one of its session policies allows: the request's statements or policyARNs could widen what ${linkName(link)} allows`,
      {
        hint: `List only policyARNs that ${linkName(link)} lists (and no statements), or ask the platform team for a role identity without session policies of its own for workloads.`,
        link,
        reason: CredentialFailureReason.SessionPolicyWouldBroaden,
        usageChecked: true,
      },
    );
  }
}

/**
 * Refuses what a session policy cannot narrow exactly: an identity with session policies of its own,
 * unless the request keeps to a subset of its managed policies. (Keys that are no role session are
 * never vended at all: `vendingProblems`.)
 */
export function checkNarrowing(link: ChainLink, session: SessionPolicy): void {
  const spec = link.identity.spec as { inlinePolicy?: string; policyARNs?: string[] };
  const own = spec.policyARNs ?? [];
  if (spec.inlinePolicy === undefined && own.length === 0) return;
  const subset =
    session.policy === undefined &&
    session.policyARNs.length > 0 &&
    session.policyARNs.every((arn) => own.includes(arn));
  if (!subset) throw new SessionPolicyWouldBroadenError(link);
}

/**
 * Whether the first link is a role assumed with another role's session (AWS caps such sessions at one
 * hour): a role session made from its source's credentials, where the source's are a role session too.
 */
export const roleChained = ([first, source]: readonly ChainLink[]): boolean =>
  first !== undefined &&
  source !== undefined &&
  IDENTITY_KIND_FACTS[first.kind].roleSession &&
  IDENTITY_KIND_FACTS[source.kind].roleSession;
