import { digest } from './digest.js';
import { providerOf } from './providers/index.js';
import type { ChainLink } from './providers/provider.js';

export { digest };

/**
 * The cache key of a link's credential set: its kind and UID (a re-created identity gets new
 * sessions), its credential inputs (its provider's: editing allowedNamespaces, resourceTags or
 * metadata starts no new session), the key of its source (a change anywhere down the chain makes new
 * keys up the chain) and the STS region.
 */
export function credentialKey(
  link: ChainLink,
  sourceKey: string | undefined,
  stsRegion: string,
  /** The AWSCluster's namespace and the controller's: a kind's credentials may depend on where they serve. */
  context: { namespace: string; controllerNamespace: string },
): string {
  return digest({
    kind: link.kind,
    uid: link.identity.metadata.uid,
    inputs: providerOf(link.kind).credentialInputs(link, context.namespace, context.controllerNamespace),
    source: sourceKey,
    stsRegion,
  });
}
