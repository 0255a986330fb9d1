import { isDeepStrictEqual } from 'node:util';
import { ADOPT_LABEL, ADOPT_LABEL_VALUE, EventReason, PAUSED_ANNOTATION, type AWSCluster } from '@keymaster/api';
import { ApiException, type V1Namespace } from '@kubernetes/client-node';
import { CLUSTER_LABEL_CHARACTERS, tenantObjectAsRead } from '../kube/cache-transforms.js';
import { describeKubeError } from '../kube/errors.js';
import type { EventTarget, EventType } from '../kube/events.js';
import type { Logger } from '../logging.js';
import type { Request } from '../runtime/controller.js';
import { CLUSTER_API_GROUP, FOLLOWED_KINDS, type ClusterAPICluster } from './capa-objects.js';
import { followedOf, isCompanion, type CapaObjects } from './companion.js';
import type { CompanionWrites } from './companion-writer.js';

interface Lookup<T> {
  get(name: string, namespace?: string): T | undefined;
}

export interface AdoptionDeps {
  clusters: Lookup<ClusterAPICluster>;
  namespaces: Lookup<V1Namespace>;
  /** Keymaster's AWSClusters (the cache); `parked`: past their namespace's bound, not read whole. */
  companions: Lookup<AWSCluster> & { parked(name: string, namespace: string): AWSCluster | undefined };
  capa: CapaObjects;
  /**
   * --watch-namespace and --watch-filter: a Cluster outside them is not followed, since its companion
   * would be outside the AWSCluster cache (never reconciled, and seen as missing here).
   */
  watched: (cluster: ClusterAPICluster) => boolean;
  writes: CompanionWrites;
  events: { record(target: EventTarget, type: EventType, reason: string, text: string): Promise<void> };
  logger: Logger;
}

/** Whether ops labelled the namespace for Keymaster to follow its Cluster API clusters. */
export const isAdopted = (namespace: V1Namespace | undefined): boolean =>
  namespace?.metadata?.labels?.[ADOPT_LABEL] === ADOPT_LABEL_VALUE;

/** What a companion's cached copy keeps of its labels and annotations: compared alike with what it should be. */
const asCached = tenantObjectAsRead([PAUSED_ANNOTATION], CLUSTER_LABEL_CHARACTERS);

function differs(current: AWSCluster, desired: AWSCluster): boolean {
  const wanted = asCached(desired).metadata;
  return (
    !isDeepStrictEqual(current.spec, desired.spec) ||
    !isDeepStrictEqual(current.metadata.labels ?? {}, wanted.labels ?? {}) ||
    current.metadata.annotations?.[PAUSED_ANNOTATION] !== wanted.annotations?.[PAUSED_ANNOTATION]
  );
}

const clusterTarget = (cluster: ClusterAPICluster): EventTarget => ({
  apiVersion: `${CLUSTER_API_GROUP}/${FOLLOWED_KINDS.Cluster.version}`,
  kind: 'Cluster',
  metadata: cluster.metadata,
});

/**
 * Keeps one companion Keymaster AWSCluster per Cluster API Cluster of an adopted namespace whose
 * infrastructure is CAPA's (companion.ts), written only when it differs from what CAPA's objects
 * say, and deleted when the Cluster goes, its infrastructure stops being CAPA's or the namespace
 * loses the adopt label. A Keymaster AWSCluster of the name that is no companion is left alone.
 */
export class AdoptionReconciler {
  readonly #deps: AdoptionDeps;
  /** What was said of each Cluster (namespace/name), once: a quiet resync says nothing again. */
  readonly #said = new Map<string, Set<string>>();

  constructor(deps: AdoptionDeps) {
    this.#deps = deps;
  }

  readonly reconcile = async ({ namespace = '', name }: Request): Promise<undefined> => {
    const { clusters, namespaces, companions, capa, watched, writes } = this.#deps;
    const companion = companions.get(name, namespace);
    // Past the namespace's bound: not read whole, so not compared; the AWSCluster reconcile says it is parked.
    if (!companion && companions.parked(name, namespace)) return;
    const cluster = clusters.get(name, namespace);
    const followed =
      cluster && !cluster.metadata.deletionTimestamp && watched(cluster) && isAdopted(namespaces.get(namespace))
        ? followedOf(cluster, capa)
        : undefined;
    const key = `${namespace}/${name}`;
    if (!cluster || !followed || followed.state === 'ignored') {
      // Released: the Cluster is gone or leaving, the namespace unlabelled, or its infrastructure not CAPA's.
      this.#said.delete(key);
      if (companion && isCompanion(companion) && !companion.metadata.deletionTimestamp) await writes.delete(companion);
      return;
    }
    // CAPA's objects not all there yet, or the last companion still being deleted: their events bring it back.
    if (followed.state === 'waiting' || companion?.metadata.deletionTimestamp) return;
    if (followed.state === 'missingRegion') {
      await this.#sayOnce(
        key,
        cluster,
        EventReason.RegionMissing,
        `${followed.kind} ${namespace}/${followed.name} names no spec.region: Keymaster governs the cluster once it has one`,
      );
      return;
    }
    const desired = followed.companion;
    if (!companion) {
      await this.#write(cluster, () => writes.create(desired));
      return;
    }
    if (!isCompanion(companion, cluster.metadata.uid)) {
      // A companion of an earlier Cluster of this name (the garbage collector's to delete too), or hand-made.
      if (isCompanion(companion)) await writes.delete(companion);
      else
        await this.#sayOnce(
          key,
          cluster,
          EventReason.HandMadeAWSCluster,
          `the AWSCluster ${namespace}/${name} (infrastructure.keymaster.dev) was not made by Keymaster for this Cluster: ` +
            'it governs the cluster as written. To have Keymaster follow the Cluster instead, delete that AWSCluster',
        );
      return;
    }
    if (differs(companion, desired)) await this.#write(cluster, () => writes.update(companion, desired));
  };

  /** A write the API server refuses as invalid (422) is said on the Cluster, not retried until something changes. */
  async #write(cluster: ClusterAPICluster, write: () => Promise<unknown>): Promise<void> {
    try {
      await write();
    } catch (error) {
      if (!(error instanceof ApiException) || error.code !== 422) throw error;
      const { message } = describeKubeError(error) as { message?: string };
      const { namespace, name } = cluster.metadata;
      await this.#sayOnce(
        `${namespace}/${name}`,
        cluster,
        EventReason.CompanionRefused,
        `Keymaster's AWSCluster ${namespace}/${name} cannot follow CAPA's objects: ${message ?? 'refused'}. ` +
          "Fix CAPA's object, or (for a name or identity that cannot change) delete that AWSCluster to have it made again",
      );
    }
  }

  async #sayOnce(key: string, cluster: ClusterAPICluster, reason: string, text: string): Promise<void> {
    const said = this.#said.get(key) ?? new Set<string>();
    if (said.has(`${reason}/${text}`)) return;
    this.#said.set(key, said.add(`${reason}/${text}`));
    this.#deps.logger.info('cluster not followed as asked', { cluster: key, reason, message: text });
    const type = reason === EventReason.HandMadeAWSCluster ? 'Normal' : 'Warning';
    await this.#deps.events.record(clusterTarget(cluster), type, reason, text);
  }
}
