import { CLUSTER_API_LAYER, quoteText, type TagConflict, type TagPlanChange, type TagSource } from '@keymaster/api';
import { CLUSTER_API_CONFLICT_FIX } from '@keymaster/tagging';

/** Why a change is planned, in words: the plan's reasons. */
export const REASONS: Record<string, string> = {
  PolicyChanged: 'the layers changed it',
  Drift: 'edited outside Keymaster',
  Adopted: 'not managed before',
  Dropped: 'no layer sets it',
  TagLimit: 'over the 50-tag limit',
  ChangedSince: 'changed since Keymaster applied it',
};

export const reasonText = (reason: string): string => REASONS[reason] ?? reason;

/** The layer and object whose claim wins a change's key, as `Layer (Kind/name)`. */
export const winnerText = ({ layer, object }: TagPlanChange): string | undefined =>
  layer ? `${layer} (${object ?? ''})` : undefined;

/** The losing claim of a key the layers disagree on, and how the winner beat it; empty when none did. */
export function conflictText(key: string, conflicts: readonly TagConflict[]): string {
  const conflict = conflicts.find((item) => item.key === key);
  if (!conflict) return '';
  const { winner, loser } = conflict;
  if (winner.layer === CLUSTER_API_LAYER)
    return `held by CAPA (${winner.object}) against ${loser.layer} ${quoteText(loser.value)} (${loser.object}): ${CLUSTER_API_CONFLICT_FIX}`;
  return `${winner.overridePolicy === 'Deny' ? 'Deny overrules' : 'overrides'} ${loser.layer} ${quoteText(loser.value)} (${loser.object})`;
}

/**
 * The keys CAPA holds (the ClusterAPI layer): no change of Keymaster's is planned for them; and each
 * of them a Keymaster layer wants another value of, with the fix.
 */
export function heldLines(held: Readonly<Record<string, TagSource>>, conflicts: readonly TagConflict[]): string[] {
  const keys = Object.keys(held);
  if (keys.length === 0) return [];
  return [
    `held by Cluster API (CAPA writes them, Keymaster neither writes nor removes them): ${keys.map((key) => quoteText(key)).join(', ')}`,
    ...keys.flatMap((key) => {
      const conflict = conflictText(key, conflicts);
      return conflict ? [`${quoteText(key)} = ${quoteText(held[key]!.value)}: ${conflict}`] : [];
    }),
  ];
}
