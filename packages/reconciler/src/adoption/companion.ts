import {
  API_VERSION,
  CAPA_GROUP,
  CLUSTER_CLASS_LABEL,
  PAUSED_ANNOTATION,
  SINGLETON_NAME,
  type AWSCluster,
  type AWSClusterSpec,
  type ClusterIdentityReference,
  type OwnerReference,
} from '@keymaster/api';
import {
  CAPA_CONTROL_PLANE_GROUP,
  CLUSTER_API_GROUP,
  FOLLOWED_KINDS,
  type CapaObject,
  type ClusterAPICluster,
  type ClusterAPIReference,
} from './capa-objects.js';
import { defaultEksClusterName } from './eks-name.js';

/** Where CAPA's objects of a Cluster's namespace are read: the adoption caches, or a test's fakes. */
export interface CapaObjects {
  awsCluster(name: string, namespace: string): CapaObject | undefined;
  managedCluster(name: string, namespace: string): CapaObject | undefined;
  controlPlane(name: string, namespace: string): CapaObject | undefined;
}

/**
 * What a Cluster asks of its companion: `companion` to keep; `waiting` while CAPA's objects it names
 * are not there yet (their events bring it back); `missingRegion` when CAPA's object names none;
 * `ignored` when its infrastructure is not CAPA's.
 */
export type Followed =
  | { state: 'companion'; companion: AWSCluster }
  | { state: 'waiting'; kind: string; name: string }
  | { state: 'missingRegion'; kind: string; name: string }
  | { state: 'ignored' };

/** CAPA's object the companion is read from, the objects whose pause counts, and the cluster name CAPA uses. */
interface Source {
  object: CapaObject;
  ref: { apiGroup: string; kind: string; name: string };
  pauses: CapaObject[];
  clusterName: string;
}

/** CAPA's default identity, as its webhooks set it on an AWSCluster or AWSManagedControlPlane without one. */
const CAPA_DEFAULT_IDENTITY = { kind: 'AWSClusterControllerIdentity', name: SINGLETON_NAME };

/** A v1beta2 reference of the group, or without a group (a Cluster written as v1beta1, with no webhook to set it). */
const refersTo = (ref: ClusterAPIReference | undefined, group: string, kind: string): boolean =>
  ref?.kind === kind && (ref.apiGroup ?? group) === group;

function sourceOf(cluster: ClusterAPICluster, capa: CapaObjects): Source | Exclude<Followed, { state: 'companion' }> {
  const namespace = cluster.metadata.namespace ?? '';
  const { infrastructureRef, controlPlaneRef } = cluster.spec ?? {};
  if (!infrastructureRef) return { state: 'ignored' };
  if (refersTo(infrastructureRef, CAPA_GROUP, 'AWSCluster')) {
    const object = capa.awsCluster(infrastructureRef.name, namespace);
    if (!object) return { state: 'waiting', kind: 'AWSCluster', name: infrastructureRef.name };
    return {
      object,
      ref: { apiGroup: CAPA_GROUP, kind: 'AWSCluster', name: infrastructureRef.name },
      pauses: [object],
      clusterName: cluster.metadata.name ?? '',
    };
  }
  // EKS: the region, identity, tags and name are the control plane's.
  if (
    controlPlaneRef &&
    refersTo(infrastructureRef, CAPA_GROUP, 'AWSManagedCluster') &&
    refersTo(controlPlaneRef, CAPA_CONTROL_PLANE_GROUP, 'AWSManagedControlPlane')
  ) {
    const managed = capa.managedCluster(infrastructureRef.name, namespace);
    if (!managed) return { state: 'waiting', kind: 'AWSManagedCluster', name: infrastructureRef.name };
    const object = capa.controlPlane(controlPlaneRef.name, namespace);
    if (!object) return { state: 'waiting', kind: 'AWSManagedControlPlane', name: controlPlaneRef.name };
    return {
      object,
      ref: { apiGroup: CAPA_CONTROL_PLANE_GROUP, kind: 'AWSManagedControlPlane', name: controlPlaneRef.name },
      pauses: [managed, object],
      clusterName: object.spec?.eksClusterName ?? defaultEksClusterName(controlPlaneRef.name, namespace),
    };
  }
  return { state: 'ignored' };
}

const isPaused = (object: { metadata?: { annotations?: Record<string, string> } }) =>
  object.metadata?.annotations?.[PAUSED_ANNOTATION] !== undefined;

/** Whether Cluster API pauses the Cluster itself: its spec.paused, or the pause annotation on it. */
export const isClusterPaused = (cluster: ClusterAPICluster): boolean =>
  cluster.spec?.paused === true || isPaused(cluster);

/** The companion AWSCluster a Cluster of an adopted namespace asks for, as CAPA's webhooks would default it. */
export function followedOf(cluster: ClusterAPICluster, capa: CapaObjects): Followed {
  const source = sourceOf(cluster, capa);
  if ('state' in source) return source;
  const { object, ref, pauses, clusterName } = source;
  const region = object.spec?.region;
  if (!region) return { state: 'missingRegion', kind: ref.kind, name: ref.name };
  const { name = '', namespace = '', uid = '' } = cluster.metadata;
  const identity = object.spec?.identityRef ?? CAPA_DEFAULT_IDENTITY;
  const additionalTags = object.spec?.additionalTags;
  const spec: AWSClusterSpec = {
    region,
    clusterName,
    identityRef: { apiGroup: CAPA_GROUP, ...identity } as ClusterIdentityReference,
    clusterAPI: {
      clusterRef: { name },
      infrastructureRef: ref,
      ...(additionalTags && Object.keys(additionalTags).length > 0 ? { additionalTags } : {}),
    },
  };
  const paused = isClusterPaused(cluster) || pauses.some(isPaused);
  return {
    state: 'companion',
    companion: {
      apiVersion: API_VERSION,
      kind: 'AWSCluster',
      metadata: {
        name,
        namespace,
        labels: labelsOf(cluster),
        ...(paused ? { annotations: { [PAUSED_ANNOTATION]: 'true' } } : {}),
        ownerReferences: [ownerOf(cluster.metadata.name ?? '', uid)],
      },
      spec,
    },
  };
}

/** The Cluster's labels; the ClusterClass label says its topology's class, and only that. */
function labelsOf(cluster: ClusterAPICluster): Record<string, string> {
  const { [CLUSTER_CLASS_LABEL]: _claimed, ...labels } = cluster.metadata.labels ?? {};
  const className = cluster.spec?.topology?.classRef?.name;
  return className ? { ...labels, [CLUSTER_CLASS_LABEL]: className } : labels;
}

const CLUSTER_API_VERSION = `${CLUSTER_API_GROUP}/${FOLLOWED_KINDS.Cluster.version}`;

const ownerOf = (name: string, uid: string): OwnerReference => ({
  apiVersion: CLUSTER_API_VERSION,
  kind: 'Cluster',
  name,
  uid,
  controller: true,
});

/** The Cluster API Clusters an AWSCluster's ownerReferences name (any version of the group). */
const clusterOwners = (cluster: AWSCluster) =>
  (cluster.metadata.ownerReferences ?? []).filter(
    ({ apiVersion, kind }) => kind === 'Cluster' && apiVersion.split('/')[0] === CLUSTER_API_GROUP,
  );

/**
 * Whether an AWSCluster is a companion Keymaster made: spec.clusterAPI naming a Cluster of its own
 * name, and an ownerReference to a Cluster of that name (of `uid` when given). A hand-made one has
 * neither, so it is never written or deleted here.
 */
export function isCompanion(cluster: AWSCluster, uid?: string): boolean {
  const name = cluster.metadata.name;
  return (
    cluster.spec.clusterAPI?.clusterRef.name === name &&
    clusterOwners(cluster).some((owner) => owner.name === name && (uid === undefined || owner.uid === uid))
  );
}
