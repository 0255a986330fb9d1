import type { SessionPolicy } from '@keymaster/api';
import { IdentityError, type LinkName } from './errors.js';
import type { ChainLink } from './providers/provider.js';

/** Kinds whose credentials are a role session: only these take a session policy, and a role assumed with one is chained. */
export const ROLE_SESSION_KINDS: readonly string[] = ['AWSClusterRoleIdentity', 'AWSClusterWebIdentity'];

const linkName = (link: LinkName) => `${link.kind}/${link.name}`;

/** The request's identity gives keys no session policy can narrow: writing them out would be passthrough. */
export class PassthroughRefusedError extends IdentityError {
  constructor(link: LinkName) {
    super(
      'ERR_KEYMASTER_PASSTHROUGH_REFUSED',
      `${linkName(link)} cannot be narrowed: its keys are ${link.kind === 'AWSClusterStaticIdentity' ? 'long-lived keys of a Secret' : "the controller's own credentials"}, which take no session policy, and writing them into a tenant's Secret would be passthrough`,
      {
        hint: 'Point spec.identityRef at a role identity (AWSClusterRoleIdentity, which may use this identity as its sourceIdentityRef) or a web identity: the credentials are then a session of that role, narrowed by the request.',
        link,
        reason: 'PassthroughRefused',
        usageChecked: true,
      },
    );
  }
}

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
        reason: 'SessionPolicyWouldBroaden',
        usageChecked: true,
      },
    );
  }
}

/**
 * Refuses what a session policy cannot narrow exactly: keys that are not a role session, and identities
 * with session policies of their own, unless the request keeps to a subset of their managed policies.
 */
export function checkNarrowing(link: ChainLink, session: SessionPolicy): void {
  if (!ROLE_SESSION_KINDS.includes(link.kind)) throw new PassthroughRefusedError(link);
  const spec = link.identity.spec as { inlinePolicy?: string; policyARNs?: string[] };
  const own = spec.policyARNs ?? [];
  if (spec.inlinePolicy === undefined && own.length === 0) return;
  const subset =
    session.policy === undefined &&
    session.policyARNs.length > 0 &&
    session.policyARNs.every((arn) => own.includes(arn));
  if (!subset) throw new SessionPolicyWouldBroadenError(link);
}

/** Whether the first link is a role assumed with another role's session (AWS caps such sessions at one hour). */
export const roleChained = (links: readonly ChainLink[]): boolean =>
  links[0]?.kind === 'AWSClusterRoleIdentity' && links[1] !== undefined && ROLE_SESSION_KINDS.includes(links[1].kind);
