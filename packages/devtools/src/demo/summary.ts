import { isReady, isRefused, type ClusterRow } from './clusters.js';
import { renderRequests, type RequestRow } from './credentials.js';
import type { StsMinimum, TagChange } from './minimums.js';

/** The AWS actions that write tags. */
const TAG_WRITES = ['tag:TagResources', 'tag:UntagResources', 'ec2:CreateTags', 'ec2:DeleteTags'];

/** The calls that matter here, from the aws-emulator's call log counts (`byAction`). */
export function awsCallCounts(byAction: Readonly<Record<string, number>>) {
  return {
    assumeRole: byAction['sts:AssumeRole'] ?? 0,
    getCallerIdentity: byAction['sts:GetCallerIdentity'] ?? 0,
    tagWrites: TAG_WRITES.reduce((sum, action) => sum + (byAction[action] ?? 0), 0),
  };
}

export interface DemoSummary {
  elapsedMs: number;
  rows: readonly ClusterRow[];
  /** The AWSCredentialsRequests when the clusters converged. */
  requests: readonly RequestRow[];
  calls: ReturnType<typeof awsCallCounts>;
  stsMinimum: StsMinimum;
  tagChange: TagChange;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/**
 * What happened, for a person: STS and tag write calls until convergence against their minimum; and
 * the clusters and credentials requests as they are now (`rows`, `requests`, on every refresh: a fix
 * made after convergence shows).
 */
export function renderSummary(
  { elapsedMs, calls, stsMinimum, tagChange, ...converged }: DemoSummary,
  rows: readonly ClusterRow[] = converged.rows,
  requests: readonly RequestRow[] = converged.requests,
): string[] {
  const refused = rows.filter(isRefused);
  const conflicts = rows.flatMap((row) => row.conflicts.map((conflict) => ({ row, conflict })));
  const sts = calls.assumeRole + calls.getCallerIdentity;
  const stsMinimumTotal = stsMinimum.assumeRole + stsMinimum.getCallerIdentity;
  return [
    `Converged in ${seconds(elapsedMs)}: ${rows.filter(isReady).length} of ${plural(rows.length, 'cluster')} Ready, ${refused.length} refused.`,
    `STS calls:  ${sts} (${calls.assumeRole} AssumeRole + ${calls.getCallerIdentity} GetCallerIdentity); minimum ${stsMinimumTotal} (${plural(stsMinimum.assumeRole, 'role link')} + ${plural(stsMinimum.getCallerIdentity, 'credential set')})`,
    `Tag writes: ${plural(calls.tagWrites, 'call')} for ${plural(tagChange.resources, 'resource')} changed; minimum ${tagChange.minimumCalls}`,
    `Conflicts:  ${conflicts.length}`,
    ...conflicts.map(
      ({ row, conflict: { key, winner, loser } }) =>
        `  ${row.namespace}/${row.name}: ${key}="${winner.value}" from ${winner.object}${winner.overridePolicy === 'Deny' ? ' (overridePolicy: Deny)' : ''} wins over "${loser.value}" from ${loser.object}`,
    ),
    `Refused:    ${refused.length}`,
    ...refused.map((row) => `  ${row.namespace}/${row.name}: ${row.ready?.reason ?? ''}: ${row.ready?.message ?? ''}`),
    ...renderRequests(requests),
  ];
}
