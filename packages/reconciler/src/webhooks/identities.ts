import type { IdentityKind } from '@keymaster/api';
import {
  ChainTooDeepError,
  checkChain,
  IdentityCycleError,
  identityId,
  NamespaceNotAllowedError,
  providerOf,
  type IdentityError,
  type IdentityObject,
  type IdentityStore,
} from '@keymaster/identity';
import { describeObject } from '@keymaster/tagging';
import { dependentClusters } from '../awsclusteridentity/dependents.js';
import { bypassed, explain, schemaProblems, specUnchanged, tagProblems } from './checks.js';
import type { WebhookContext } from './context.js';
import { vendingMistakes } from './identity-vending.js';
import { allow, deny, type AdmissionRequest, type Verdict } from './review.js';

const linkOf = (identity: IdentityObject): string =>
  identityId(identity.kind, identity.metadata.name ?? '', identity.metadata.namespace);

/** The caches, with the identity being written (Keymaster's: CAPA's of its name stays CAPA's) in place of the stored one. */
const withIdentity = (store: IdentityStore, written: IdentityObject): IdentityStore => ({
  ...store,
  getIdentity: (kind: IdentityKind, name: string, namespace: string, apiGroup?: string) =>
    identityId(kind, name, namespace, apiGroup) === linkOf(written)
      ? Promise.resolve(written)
      : store.getIdentity(kind, name, namespace, apiGroup),
});

const breaksChain = (problem: IdentityError): boolean =>
  problem instanceof IdentityCycleError || problem instanceof ChainTooDeepError;

/**
 * Cycles and chains too deep that the written identity would make: its own chain and the chains of
 * every identity that reaches it (identities are few). Other problems of its own chain (a source or
 * Secret not there yet) are warnings.
 */
async function chainProblems(written: IdentityObject, context: WebhookContext) {
  const store = withIdentity(context.store, written);
  const self = linkOf(written);
  const refusals = new Set<string>();
  const warnings: string[] = [];
  const starts = [written, ...context.identities().filter((identity) => linkOf(identity) !== self)];
  for (const start of starts) {
    // A namespaced identity's chain is walked from its namespace, the only one that may name it.
    const links = await checkChain(store, {
      namespace: start.metadata.namespace ?? '',
      identityRef: { kind: start.kind, name: start.metadata.name ?? '' },
      controllerNamespace: context.controllerNamespace,
    });
    const reachesWritten = links.some(
      (link) => identityId(link.kind, link.name, start.metadata.namespace, link.apiGroup) === self,
    );
    if (start !== written && !reachesWritten) continue;
    for (const problem of links.flatMap((link) => link.problems)) {
      if (breaksChain(problem)) refusals.add(explain(problem));
      else if (start === written && !(problem instanceof NamespaceNotAllowedError)) warnings.push(explain(problem));
    }
  }
  return { refusals: [...refusals], warnings };
}

/**
 * Identities refused before they are stored: the schema (singleton names, immutable fields,
 * selectors), the full AWS tag rules on resourceTags and sessionTags, the chain (cycles, depth), and
 * credentialVending that can never take effect (`vendingMistakes`); what works but should change (a
 * role's externalID in its spec) is a warning.
 * Deleting an identity that AWSClusters use is refused with their names (privileged principals may
 * bypass it; the finalizer keeps the identity until its last user goes whether or not this runs).
 */
export async function validateIdentity(request: AdmissionRequest, context: WebhookContext): Promise<Verdict> {
  if (request.operation === 'DELETE') return refuseDeletionInUse(request, context);
  if (specUnchanged(request)) return allow();
  const identity = request.object as IdentityObject & {
    spec: { resourceTags?: { key: string; value: string }[]; sessionTags?: { key: string; value: string }[] };
  };
  const origin = { layer: 'Account' as const, object: describeObject(identity) };
  const invalid = [
    ...schemaProblems(request),
    ...tagProblems(identity.spec.resourceTags ?? [], origin),
    ...tagProblems(identity.spec.sessionTags ?? [], { ...origin, object: `${origin.object} sessionTags` }),
  ];
  if (invalid.length > 0) return deny(422, invalid.join('; '));
  const chain = await chainProblems(identity, context);
  const vending = vendingMistakes(identity, context.identities());
  const refusals = [...chain.refusals, ...vending.refusals];
  const warnings = [...providerOf(identity.kind).warnings(identity), ...chain.warnings, ...vending.warnings];
  return refusals.length > 0 ? deny(422, refusals.join('; '), warnings) : allow(warnings);
}

async function refuseDeletionInUse(request: AdmissionRequest, context: WebhookContext): Promise<Verdict> {
  const identity = request.oldObject as IdentityObject;
  const link = linkOf(identity);
  const users = await dependentClusters(context.store, context.controllerNamespace, context.clusters(), link);
  if (users.length === 0) return allow();
  const refusal =
    `${link} is used by ${users.length} AWSCluster${users.length === 1 ? '' : 's'}: ${users.join(', ')}. ` +
    'Point them at another identity or delete them first (the identity would stay until then: its finalizer waits for its last user)';
  if (bypassed(request, context.privileged, context.logger, refusal)) return allow([`deleted although ${refusal}`]);
  return deny(409, refusal);
}
