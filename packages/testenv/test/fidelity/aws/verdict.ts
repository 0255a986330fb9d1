import type { Comparison, Difference } from './corpus.js';
import { EXPLAINED, type Explanation } from './explained.js';
import type { Observation } from './run.js';

/** What a side answered at a step: the error code, `ok`, or `missing` (its sequence ended earlier). */
export function outcome(observation: Observation | undefined): string {
  if (observation === undefined) return 'missing';
  return 'error' in observation ? observation.error : 'ok';
}

export interface Verdict {
  /** Differences no explanation covers, or whose outcomes are not the ones explained. */
  unexplained: (Difference & { sequence: string })[];
  /** Explanations of steps that no longer differ. */
  stale: Explanation[];
  /** Each difference with its explanation, in corpus order. */
  explained: { sequence: string; difference: Difference; explanation: Explanation }[];
}

/** Holds every difference of a corpus run against the list of explained differences. */
export function judge(comparisons: readonly Comparison[], explanations: readonly Explanation[] = EXPLAINED): Verdict {
  const verdict: Verdict = { unexplained: [], stale: [], explained: [] };
  const used = new Set<Explanation>();
  for (const { name: sequence, differences } of comparisons) {
    for (const difference of differences) {
      const explanation = explanations.find(
        (candidate) =>
          candidate.sequence === sequence &&
          candidate.step === difference.step &&
          candidate.outcomes.awsEmulator === outcome(difference.awsEmulator) &&
          candidate.outcomes.moto === outcome(difference.moto),
      );
      if (explanation === undefined) {
        verdict.unexplained.push({ sequence, ...difference });
        continue;
      }
      used.add(explanation);
      verdict.explained.push({ sequence, difference, explanation });
    }
  }
  verdict.stale = explanations.filter((explanation) => !used.has(explanation));
  return verdict;
}
