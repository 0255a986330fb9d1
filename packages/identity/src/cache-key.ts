import { createHash } from 'node:crypto';
import type { ChainLink } from './chain.js';

/** JSON with object keys sorted, so that equal values always hash alike. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item !== null && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}

export const digest = (value: unknown): string => createHash('sha256').update(canonical(value)).digest('hex');

/**
 * What a link's credentials depend on, and nothing else: for a role, the fields sent to
 * AssumeRole; for a static identity, its Secret name and a digest of the keys (never the keys).
 * allowedNamespaces and resourceTags shape no credentials, so editing them (or any metadata)
 * starts no new session; they are checked on every resolve instead.
 */
function credentialInputs(link: ChainLink): unknown {
  const { identity } = link;
  switch (identity.kind) {
    case 'AWSClusterRoleIdentity': {
      const { allowedNamespaces, resourceTags, ...assumeRole } = identity.spec;
      return assumeRole;
    }
    case 'AWSClusterStaticIdentity':
      return { secretRef: identity.spec.secretRef, keys: digest(link.staticKeys) };
    case 'AWSClusterControllerIdentity':
      return {};
  }
}

/**
 * The cache key of a link's credential set: its kind and UID (a re-created identity gets new
 * sessions), its credential inputs, the key of its source (a change anywhere down the chain makes
 * new keys up the chain) and the STS region.
 */
export function credentialKey(link: ChainLink, sourceKey: string | undefined, stsRegion: string): string {
  return digest({
    kind: link.kind,
    uid: link.identity.metadata.uid,
    inputs: credentialInputs(link),
    source: sourceKey,
    stsRegion,
  });
}
