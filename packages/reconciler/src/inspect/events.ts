import type { CoreV1Api } from '@kubernetes/client-node';
import { kubeRead } from '../kube/access-error.js';

export interface EventSummary {
  type: string;
  reason: string;
  message: string;
  count: number;
  lastSeen: string | undefined;
}

/** How many of the cluster's latest events are shown. */
const EVENTS_SHOWN = 10;

/** A cluster's latest events, oldest first, read as the user (events of a same-named cluster before it left out by uid). */
export async function latestEvents(
  core: CoreV1Api,
  { namespace = '', name = '', uid }: { namespace?: string; name?: string; uid?: string },
): Promise<EventSummary[]> {
  const list = await kubeRead(
    `list the events of AWSCluster ${namespace}/${name}`,
    { verb: 'list', resource: 'events', namespace },
    () =>
      core.listNamespacedEvent({
        namespace,
        fieldSelector: `involvedObject.kind=AWSCluster,involvedObject.name=${name}`,
      }),
  );
  const when = (event: (typeof list.items)[number]) =>
    String(event.lastTimestamp ?? event.eventTime ?? event.firstTimestamp ?? event.metadata.creationTimestamp ?? '');
  return list.items
    .filter((event) => uid === undefined || event.involvedObject.uid === undefined || event.involvedObject.uid === uid)
    .map((event) => ({ event, at: when(event) }))
    .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0))
    .slice(-EVENTS_SHOWN)
    .map(({ event, at }) => ({
      type: event.type ?? '',
      reason: event.reason ?? '',
      message: event.message ?? '',
      count: event.count ?? 1,
      lastSeen: at === '' ? undefined : new Date(at).toISOString(),
    }));
}
