import type { TagConflict, TagSource } from '@keymaster/api';
import type { TagLayer } from './layers.js';
import type { TagProblem } from './problems.js';
import { validateTags, type TagValidationOptions } from './validate.js';

/** The tags a cluster's resources must carry, each with the claim that won it. */
export interface EffectiveTags {
  /** Key -> the winning claim (its layer, object, value and overridePolicy), keys sorted. */
  tags: Record<string, TagSource>;
  /** One entry per key that layers set to different values, sorted by key (fits status.tagging.conflicts). */
  conflicts: TagConflict[];
  /** Tags left out because they break a rule, with their origin. */
  problems: TagProblem[];
}

/**
 * Merges the layers (in authority order, as `tagLayers` returns them). For each key the claim nearest
 * the cluster wins, unless a claim above it says `overridePolicy: Deny`: then the topmost Deny wins
 * and every claim below it with another value loses. A key whose claims disagree is reported once,
 * with the winner and the losing claim nearest the cluster (the one most directly overruled).
 */
export function resolveEffectiveTags(layers: readonly TagLayer[], options: TagValidationOptions = {}): EffectiveTags {
  const claims = new Map<string, TagSource[]>();
  const problems: TagProblem[] = [];
  for (const { layer, object, tags } of layers) {
    const checked = validateTags(tags, { layer, object }, options);
    problems.push(...checked.problems);
    for (const { key, value, overridePolicy } of checked.valid) {
      // A cluster's tags are the lowest layer: there is nothing for them to allow or deny.
      const claim: TagSource =
        layer === 'Cluster'
          ? { layer, object, value }
          : { layer, object, value, overridePolicy: overridePolicy ?? 'Allow' };
      claims.set(key, [...(claims.get(key) ?? []), claim]);
    }
  }

  const winners: [string, TagSource][] = [];
  const conflicts: TagConflict[] = [];
  for (const key of [...claims.keys()].sort()) {
    const keyClaims = claims.get(key)!;
    const winner = keyClaims.find((claim) => claim.overridePolicy === 'Deny') ?? keyClaims.at(-1)!;
    winners.push([key, winner]);
    const loser = keyClaims.filter((claim) => claim.value !== winner.value).at(-1);
    if (loser) conflicts.push({ key, winner, loser });
  }
  // fromEntries defines own properties, so even a key such as `__proto__` stays a plain entry.
  return { tags: Object.fromEntries(winners), conflicts, problems };
}

/** The effective tags as a plain key -> value map. */
export const effectiveValues = (effective: EffectiveTags): Record<string, string> =>
  Object.fromEntries(Object.entries(effective.tags).map(([key, source]) => [key, source.value]));
