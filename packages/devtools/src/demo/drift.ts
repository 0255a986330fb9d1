import { ResourceGroupsTaggingAPIClient, TagResourcesCommand } from '@aws-sdk/client-resource-groups-tagging-api';
import { ownershipTagKeys, type AWSCluster } from '@keymaster/api';
import { clusterNameOf } from '@keymaster/reconciler';
import type { Emulators } from '@keymaster/testenv';

/** A managed tag the demo changed on AWS behind Keymaster's back. */
export interface Drift {
  cluster: string;
  arn: string;
  key: string;
  /** The value Keymaster applied, and the one the demo wrote. */
  applied: string;
  written: string;
  /** Who wrote it. */
  by: string;
  madeAt: number;
  correctedAt?: number;
}

const isReady = (cluster: AWSCluster) =>
  cluster.status?.conditions?.some(({ type, status }) => type === 'Ready' && status === 'True') === true;

/**
 * After convergence, the demo edits one managed tag of a Ready cluster's resource as someone with
 * the account's keys would (tag:TagResources through the AWS SDK, against the aws-emulator), so that
 * the next sync shows Keymaster putting it back. Undefined when no Ready cluster's account has a user
 * allowed to tag.
 */
export async function makeDrift(
  emulators: Emulators,
  clusters: readonly AWSCluster[],
  now: number,
): Promise<Drift | undefined> {
  for (const cluster of clusters.filter(isReady)) {
    const keys = cluster.status?.accountID && emulators.taggerKeys(cluster.status.accountID);
    const [key, applied] = Object.entries(cluster.status?.tagging?.managedTags ?? {})[0] ?? [];
    if (!keys || key === undefined || applied === undefined) continue;
    const [owned] = ownershipTagKeys(clusterNameOf(cluster));
    const resource = emulators.aws.world
      .listResources()
      .find(
        ({ arn, tags }) =>
          tags[owned!] === 'owned' && tags[key] === applied && arn.includes(`:${cluster.spec.region}:`),
      );
    if (!resource) continue;
    const written = `${applied}-edited-by-hand`;
    const client = new ResourceGroupsTaggingAPIClient({
      endpoint: emulators.aws.url,
      region: cluster.spec.region,
      credentials: { accessKeyId: keys.accessKeyId, secretAccessKey: keys.secretAccessKey },
    });
    try {
      await client.send(new TagResourcesCommand({ ResourceARNList: [resource.arn], Tags: { [key]: written } }));
    } finally {
      client.destroy();
    }
    return {
      cluster: `${cluster.metadata.namespace}/${cluster.metadata.name}`,
      arn: resource.arn,
      key,
      applied,
      written,
      by: keys.arn,
      madeAt: now,
    };
  }
  return undefined;
}

/** Whether the resource carries Keymaster's value again. */
export const driftCorrected = (emulators: Emulators, drift: Drift): boolean =>
  emulators.aws.world.listResources().find(({ arn }) => arn === drift.arn)?.tags[drift.key] === drift.applied;

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The footer's lines about the drift: made and waiting for a sync, or corrected. */
export function renderDrift(drift: Drift, syncPeriod: string): string[] {
  const made = `  ${drift.cluster}: ${drift.key}="${drift.applied}" set to "${drift.written}" on ${drift.arn} by ${drift.by} (tag:TagResources)`;
  return [
    '',
    drift.correctedAt === undefined
      ? `Drift:      Drifted. Keymaster sets it back at its next sync (--sync-period ${syncPeriod}):`
      : `Drift:      corrected by Keymaster ${seconds(drift.correctedAt - drift.madeAt)} after it was made (event TagDriftCorrected on ${drift.cluster}):`,
    made,
  ];
}
