import { CoreV1Api, type CoreV1Event } from '@kubernetes/client-node';
import { EventReason, type AWSCluster } from '@keymaster/api';
import type { Emulators } from '@keymaster/testenv';

// The TagDriftCorrected event's message (@keymaster/tagging's taggingEvents): "Set back 2 tags edited
// outside Keymaster on 1 resource: …".
const RESOURCES = /^Set back \d+ tags? edited outside Keymaster on (\d+) resources?\b/;

const time = (value: Date | string | undefined) => (value === undefined ? NaN : new Date(value).getTime());

/**
 * Per cluster (`namespace/name`), the resources whose drift its last sync set back. Status counts
 * only what is still drifted after a sync, so corrected drift shows nowhere but in an event: the
 * TagDriftCorrected event recorded at or after the cluster's status.tagging.lastSyncTime (a sync
 * that writes tags moves it). Events and status come from the API server, written by the controller.
 */
export function driftSetBack(clusters: readonly AWSCluster[], events: readonly CoreV1Event[]): Map<string, number> {
  const setBack = new Map<string, number>();
  for (const cluster of clusters) {
    const { namespace, name, uid } = cluster.metadata;
    // Event times have seconds only: the sync's own second counts.
    const syncedAt = Math.floor(time(cluster.status?.tagging?.lastSyncTime) / 1000) * 1000;
    const resources = events
      .filter(
        ({ involvedObject, reason, lastTimestamp, eventTime }) =>
          reason === EventReason.TagDriftCorrected &&
          involvedObject.kind === 'AWSCluster' &&
          involvedObject.uid === uid &&
          time(lastTimestamp ?? eventTime) >= syncedAt,
      )
      .map(({ message }) => Number(RESOURCES.exec(message ?? '')?.[1] ?? 0));
    if (resources.length > 0) setBack.set(`${namespace}/${name}`, Math.max(...resources));
  }
  return setBack;
}

/** The AWSClusters' events, in every namespace. */
export async function listClusterEvents(emulators: Emulators): Promise<CoreV1Event[]> {
  const { items } = await emulators.kubeConfig.makeApiClient(CoreV1Api).listEventForAllNamespaces({
    fieldSelector: 'involvedObject.kind=AWSCluster',
  });
  return items;
}
