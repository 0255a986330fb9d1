import type { CredentialVending, IdentityObject } from '@keymaster/api';
import type { IdentityError, LinkName } from './errors.js';
import { namespaceAllowed, type NamespaceInfo } from './namespaces.js';
import { providerOf } from './providers/index.js';
import type { ChainLink } from './providers/provider.js';
import {
  PassthroughRefusedError,
  SourceIdentityNotVendableError,
  VendingNamespaceNotAllowedError,
  VendingNotEnabledError,
} from './vending-errors.js';

/** An identity's opt-in to vending: present (even allowing no namespace) or not. */
export const credentialVendingOf = (identity: IdentityObject): CredentialVending | undefined =>
  (identity.spec as { credentialVending?: CredentialVending | null }).credentialVending ?? undefined;

/** The identities whose credentials are made from `ref`'s (their sourceIdentityRef, or a role's default): a hub's spokes. */
export const identitiesSourcedFrom = (ref: LinkName, identities: readonly IdentityObject[]): IdentityObject[] =>
  identities.filter((identity) => {
    const source = providerOf(identity.kind).source(identity);
    return source?.kind === ref.kind && source.name === ref.name;
  });

/**
 * Why an AWSCredentialsRequest of `namespace` may not have the session of its own identity (`link`,
 * which allowedNamespaces already let through on every link of its chain), every reason at once:
 * - never vended, whatever credentialVending says: kinds that take no session policy (passthrough),
 *   what the kind's provider refuses (a web identity whose token is of the controller's namespace),
 *   and an identity that is the source of another (a hub: decided from `identities`, the ones that
 *   exist now, so that making it a source later stops its vending at its requests' next reconcile);
 * - otherwise, vending is opt-in: credentialVending.allowedNamespaces must allow the namespace.
 * Empty when the session may be vended. Reads nothing and calls nothing: no STS call for a refusal.
 */
export function vendingProblems(
  link: ChainLink,
  namespace: NamespaceInfo,
  identities: readonly IdentityObject[],
): IdentityError[] {
  // Errors name the link only: a ChainLink also holds what was loaded for it (static keys).
  const name: LinkName = { kind: link.kind, name: link.name };
  const vending = providerOf(link.kind).vending;
  if (!vending) return [new PassthroughRefusedError(name)];
  const sourceOf = identitiesSourcedFrom(name, identities).length;
  const never = [
    vending.refusal?.(link.identity, name),
    sourceOf > 0 ? new SourceIdentityNotVendableError(name, sourceOf) : undefined,
  ].filter((problem) => problem !== undefined);
  if (never.length > 0) return never;
  const optIn = credentialVendingOf(link.identity);
  if (!optIn) return [new VendingNotEnabledError(name, namespace.name)];
  if (!namespaceAllowed(optIn.allowedNamespaces, namespace))
    return [new VendingNamespaceNotAllowedError(name, namespace.name)];
  return [];
}
