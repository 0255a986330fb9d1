import { quoteText, type TagConflict, type TagPlanChange } from '@keymaster/api';

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
  return `${winner.overridePolicy === 'Deny' ? 'Deny overrules' : 'overrides'} ${loser.layer} ${quoteText(loser.value)} (${loser.object})`;
}
