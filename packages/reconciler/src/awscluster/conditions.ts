import { displayText, ReadyReason, type Condition, type ConditionType, type ConditionUpdate } from '@keymaster/api';

/**
 * Sets a condition the metav1 way: lastTransitionTime changes only when the status does, so that an
 * unchanged condition rewritten on every reconcile is byte-for-byte the same (and causes no write).
 * The message's control and bidirectional characters are escaped: messages quote tenants' input.
 */
export function setCondition(
  conditions: readonly Condition[],
  update: ConditionUpdate,
  generation: number,
  now: string,
): Condition[] {
  const existing = conditions.find((condition) => condition.type === update.type);
  const next: Condition = {
    ...update,
    message: displayText(update.message),
    observedGeneration: generation,
    lastTransitionTime: existing && existing.status === update.status ? existing.lastTransitionTime : now,
  };
  return existing ? conditions.map((condition) => (condition === existing ? next : condition)) : [...conditions, next];
}

export const findCondition = (
  conditions: readonly Condition[] | undefined,
  type: ConditionType,
): Condition | undefined => conditions?.find((condition) => condition.type === type);

/** Conditions whose False needs someone to act (tag failures have events of their own, from tagging). */
const ACTIONABLE: ConditionType[] = ['PrincipalUsageAllowed', 'PrincipalCredentialRetrieved', 'ClusterNameUnique'];

/**
 * The actionable conditions that have just become False, or False for another reason: each deserves
 * a Warning event once, at the transition, not at every resync that finds the same failure.
 */
export function newFailures(before: readonly Condition[], after: readonly Condition[]): Condition[] {
  return ACTIONABLE.flatMap((type) => {
    const now = findCondition(after, type);
    const previous = findCondition(before, type);
    const fresh = now?.status === 'False' && (previous?.status !== 'False' || previous.reason !== now.reason);
    return fresh ? [now] : [];
  });
}

/**
 * Ready sums up its inputs: True (with `readyMessage`) when every input is True; else False with the
 * reason and message of the first input that is False (a definite failure, even after an input that is
 * Unknown, so that `kubectl wait --for=condition=Ready=false` works); else Unknown with the first one
 * not known yet.
 */
export function readyOf(
  inputTypes: readonly ConditionType[],
  conditions: readonly Condition[],
  readyMessage: string,
): ConditionUpdate<'Ready'> {
  // The inputs are this reconcile's own typed updates, set just before: their reasons are Ready's.
  const reasonOf = (condition: Condition) => condition.reason as ReadyReason;
  const inputs = inputTypes.map((type) => ({ type, condition: findCondition(conditions, type) }));
  const failed = inputs.find(({ condition }) => condition?.status === 'False')?.condition;
  if (failed) return { type: 'Ready', status: 'False', reason: reasonOf(failed), message: failed.message };
  for (const { type, condition } of inputs) {
    if (!condition)
      return { type: 'Ready', status: 'Unknown', reason: ReadyReason.Reconciling, message: `${type} is not known yet` };
    if (condition.status !== 'True')
      return { type: 'Ready', status: 'Unknown', reason: reasonOf(condition), message: condition.message };
  }
  return { type: 'Ready', status: 'True', reason: ReadyReason.Ready, message: readyMessage };
}

/** An AWSCluster's Ready. ClusterNameUnique is a warning and does not make a cluster unready. */
export const readyCondition = (conditions: readonly Condition[]): ConditionUpdate<'Ready'> =>
  readyOf(
    ['PrincipalUsageAllowed', 'PrincipalCredentialRetrieved', 'TagsInSync'],
    conditions,
    'Credentials resolved and tags in sync',
  );
