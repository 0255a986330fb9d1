import { PAUSED_ANNOTATION } from '@keymaster/api';
import { CLUSTER_LABEL_CHARACTERS, tenantObjectAsRead } from '../kube/cache-transforms.js';

/** Cluster API's core group, whose Cluster a companion follows. */
export const CLUSTER_API_GROUP = 'cluster.x-k8s.io';
/** CAPA's EKS control planes' group. */
export const CAPA_CONTROL_PLANE_GROUP = 'controlplane.cluster.x-k8s.io';

/** The served versions read: Cluster API 1.14's and CAPA 2.13's storage versions. */
export const FOLLOWED_KINDS = {
  Cluster: { group: CLUSTER_API_GROUP, version: 'v1beta2', plural: 'clusters' },
  AWSCluster: { group: 'infrastructure.cluster.x-k8s.io', version: 'v1beta2', plural: 'awsclusters' },
  AWSManagedCluster: { group: 'infrastructure.cluster.x-k8s.io', version: 'v1beta2', plural: 'awsmanagedclusters' },
  AWSManagedControlPlane: { group: CAPA_CONTROL_PLANE_GROUP, version: 'v1beta2', plural: 'awsmanagedcontrolplanes' },
} as const;
export type FollowedKind = keyof typeof FOLLOWED_KINDS;

interface Metadata {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** A reference as Cluster API v1beta2 keeps it; apiGroup is absent on a Cluster written as v1beta1 with no webhook. */
export interface ClusterAPIReference {
  apiGroup?: string;
  kind: string;
  name: string;
}

/** A Cluster API Cluster as read: what the companion is made of. */
export interface ClusterAPICluster {
  apiVersion?: string;
  kind?: string;
  metadata: Metadata;
  spec?: {
    paused?: boolean;
    infrastructureRef?: ClusterAPIReference;
    controlPlaneRef?: ClusterAPIReference;
    topology?: { classRef?: { name?: string } };
  };
}

/** CAPA's AWSCluster, AWSManagedCluster or AWSManagedControlPlane as read. */
export interface CapaObject {
  metadata: Metadata;
  spec?: {
    region?: string;
    identityRef?: { kind: string; name: string };
    additionalTags?: Record<string, string>;
    eksClusterName?: string;
  };
}

const asRead = <T extends { metadata?: object }>(object: T) =>
  tenantObjectAsRead([PAUSED_ANNOTATION], CLUSTER_LABEL_CHARACTERS)(object);

/** A Cluster as the cache keeps it: its labels as a companion's are kept, its pause, and the spec fields read. */
export function clusterAsRead(cluster: ClusterAPICluster): ClusterAPICluster {
  const { spec } = cluster;
  const className = spec?.topology?.classRef?.name;
  return asRead({
    metadata: cluster.metadata,
    spec: {
      ...(spec?.paused ? { paused: true } : {}),
      ...(spec?.infrastructureRef ? { infrastructureRef: spec.infrastructureRef } : {}),
      ...(spec?.controlPlaneRef ? { controlPlaneRef: spec.controlPlaneRef } : {}),
      ...(className ? { topology: { classRef: { name: className } } } : {}),
    },
  });
}

/** A CAPA object as the cache keeps it: its pause and the spec fields read, no labels. */
export function capaObjectAsRead({ metadata, spec }: CapaObject): CapaObject {
  const read = tenantObjectAsRead([PAUSED_ANNOTATION])({ metadata });
  const { region, identityRef, additionalTags, eksClusterName } = spec ?? {};
  return {
    metadata: read.metadata,
    spec: {
      ...(region ? { region } : {}),
      ...(identityRef ? { identityRef: { kind: identityRef.kind, name: identityRef.name } } : {}),
      ...(additionalTags ? { additionalTags } : {}),
      ...(eksClusterName ? { eksClusterName } : {}),
    },
  };
}
