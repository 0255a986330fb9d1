import { CLUSTER_API_LAYER, quoteText, type TagConflict, type TagSource } from '@keymaster/api';
import { foldKey } from './key-fold.js';
import type { TagLayer } from './layers.js';
import { tagProblem, type LayerClaim, type TagProblem } from './problems.js';
import { validateTags, type TagValidationOptions } from './validate.js';

/** The tags a cluster's resources must carry, each with the claim that won it. */
export interface EffectiveTags {
  /** Key -> the winning claim (its layer, object, value and overridePolicy), keys sorted: what Keymaster writes. */
  tags: Record<string, LayerClaim>;
  /**
   * Key -> CAPA's claim, keys sorted: the keys of the ClusterAPI layer, which CAPA writes. Keymaster
   * neither writes nor removes them, whatever its layers say (a Deny included).
   */
  held: Record<string, TagSource>;
  /** One entry per key that layers set to different values, sorted by key (fits status.tagging.conflicts). */
  conflicts: TagConflict[];
  /** Tags left out because they break a rule, with their origin. */
  problems: TagProblem[];
}

/**
 * Merges the layers (in authority order, as `tagLayers` returns them). Among the selected policies'
 * claims of a key the highest precedence stands alone. Then the claim nearest the cluster wins,
 * unless a claim above it says `overridePolicy: Deny`: then the topmost Deny wins
 * and every claim below it with another value loses. A key whose claims disagree is reported once,
 * with the winner and the losing claim nearest the cluster (the one most directly overruled).
 * Keys that differ only in case are one key to IAM: the spelling of the topmost Deny claim (else of
 * the topmost claim) stands, and claims in another spelling are refused (`KeyVariant`).
 * A key of the ClusterAPI layer (after every other) is CAPA's: it is held, not won, and where the
 * winner of Keymaster's layers asks for another value, CAPA's claim is the winner of the conflict.
 */
export function resolveEffectiveTags(layers: readonly TagLayer[], options: TagValidationOptions = {}): EffectiveTags {
  const valid: { key: string; claim: TagSource }[] = [];
  const problems: TagProblem[] = [];
  for (const { layer, object, tags, untrusted } of layers) {
    if (untrusted !== undefined) {
      problems.push(tagProblem({ layer, object }, undefined, 'UntrustedClusterAPI', untrusted));
      continue;
    }
    const checked = validateTags(tags, { layer, object }, options);
    problems.push(...checked.problems);
    for (const { key, value, overridePolicy } of checked.valid) {
      // A cluster's tags are the lowest layer: there is nothing for them to allow or deny; CAPA's are not Keymaster's to.
      const claim: TagSource =
        layer === 'Cluster' || layer === CLUSTER_API_LAYER
          ? { layer, object, value }
          : { layer, object, value, overridePolicy: overridePolicy ?? 'Allow' };
      valid.push({ key, claim });
    }
  }

  const spellings = keySpellings(valid);
  const claims = new Map<string, LayerClaim[]>();
  const held = new Map<string, TagSource>();
  for (const { key, claim } of valid) {
    const spelling = spellings.get(foldKey(key))!;
    if (spelling.key !== key) problems.push(variantProblem(key, claim, spelling));
    else if (isLayerClaim(claim)) claims.set(key, [...(claims.get(key) ?? []), claim]);
    else held.set(key, claim);
  }

  const winners: [string, LayerClaim][] = [];
  const conflicts: TagConflict[] = [];
  for (const key of [...new Set([...claims.keys(), ...held.keys()])].sort()) {
    const keyClaims = claims.get(key) ?? [];
    const contenders = withoutOutranked(keyClaims);
    const winner = contenders.find((claim) => claim.overridePolicy === 'Deny') ?? contenders.at(-1);
    const capa = held.get(key);
    if (capa === undefined) winners.push([key, winner!]);
    const loser = keyClaims.filter((claim) => claim.value !== winner?.value).at(-1);
    // Where CAPA holds another value than Keymaster's layers want, CAPA's stays on AWS: it is the winner.
    if (capa !== undefined && winner !== undefined && winner.value !== capa.value)
      conflicts.push({ key, winner: capa, loser: winner });
    else if (winner !== undefined && loser !== undefined) conflicts.push({ key, winner, loser });
  }
  // fromEntries defines own properties, so even a key such as `__proto__` stays a plain entry.
  return {
    tags: Object.fromEntries(winners),
    held: Object.fromEntries([...held.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    conflicts,
    problems,
  };
}

const isLayerClaim = (claim: TagSource): claim is LayerClaim => claim.layer !== CLUSTER_API_LAYER;

/**
 * The claims of one key that contend across layers: of the selected policies' claims only the last
 * (the highest precedence, `selectedPolicies`' order) stays; precedence, not Deny, decides among
 * them, and the others lose to it (reported as a conflict when their value differs).
 */
function withoutOutranked(claims: readonly LayerClaim[]): LayerClaim[] {
  const topSelected = claims.findLast((claim) => claim.layer === 'Selected');
  return claims.filter((claim) => claim.layer !== 'Selected' || claim === topSelected);
}

type Spelling = { key: string; claim: TagSource };

/**
 * Folded key -> the spelling that stands: the topmost Deny claim's (so that no spelling of an
 * enforced key is left for a lower layer to set), else the topmost claim's.
 */
function keySpellings(claims: readonly Spelling[]): Map<string, Spelling> {
  const spellings = new Map<string, Spelling>();
  for (const spelling of claims) {
    const folded = foldKey(spelling.key);
    const current = spellings.get(folded);
    if (!current || (spelling.claim.overridePolicy === 'Deny' && current.claim.overridePolicy !== 'Deny')) {
      spellings.set(folded, spelling);
    }
  }
  return spellings;
}

function variantProblem(key: string, claim: TagSource, spelling: Spelling): TagProblem {
  const { object, layer, overridePolicy } = spelling.claim;
  const how = overridePolicy === 'Deny' ? 'enforces with overridePolicy: Deny' : 'sets';
  return tagProblem(
    claim,
    key,
    'KeyVariant',
    `the key differs only in case or whitespace from ${quoteText(spelling.key)}, which ${object} (${layer} layer) ${how}; ` +
      `IAM reads tag keys in any case, so a policy could not tell them apart: use ${quoteText(spelling.key)} or another key`,
  );
}

/** The effective tags as a plain key -> value map. */
export const effectiveValues = (effective: EffectiveTags): Record<string, string> =>
  Object.fromEntries(Object.entries(effective.tags).map(([key, source]) => [key, source.value]));
