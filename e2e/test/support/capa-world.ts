import type { KubernetesObject } from '@kubernetes/client-node';
import { CAPA_GROUP } from '@keymaster/api';
import { installCapa } from '@keymaster/testenv';
import type { RbacManagementCluster } from './rbac-management-cluster.js';
import { manifests } from './rbac-manifests.js';

/** CAPA's namespace, where its static identities' Secrets are (`--capa-namespace`'s default). */
export const CAPA_NAMESPACE = 'capa-system';

/** One of CAPA's identities (infrastructure.cluster.x-k8s.io/v1beta2), as ops write it for CAPA. */
export const capaIdentity = (kind: string, name: string, spec: Record<string, unknown>): KubernetesObject =>
  ({ apiVersion: `${CAPA_GROUP}/v1beta2`, kind, metadata: { name }, spec }) as KubernetesObject;

/** A Keymaster AWSCluster's identityRef naming one of CAPA's identities. */
export const capaRef = (kind: 'AWSClusterRoleIdentity' | 'AWSClusterStaticIdentity', name: string) =>
  ({ apiGroup: CAPA_GROUP, kind, name }) as const;

/** What --adopt-cluster-api needs besides deploy/rbac: the adoption's rights and the reads of CAPA's identities. */
export const adoptionRbac = (): Promise<KubernetesObject[]> => manifests('deploy/cluster-api');

/**
 * What ops do on a management cluster that runs CAPA, before Keymaster starts with --adopt-cluster-api:
 * install Cluster API's and CAPA's CRDs, `adoptionRbac` (CAPA's namespace must exist), then `identities`.
 */
export async function installCapaWith(management: RbacManagementCluster, identities: KubernetesObject[]) {
  await installCapa(management.opsKubeConfig());
  await management.install([...(await adoptionRbac()), ...identities]);
}

/**
 * What Cluster API's Cluster controller, which the e2e does not run, sets on the objects a Cluster
 * names: the Cluster as their owner (CAPA reconciles only an AWSCluster owned by its Cluster;
 * clusterctl moves a Cluster's objects along owner references) and its name label. A merge patch.
 */
export const ownedByCluster = (name: string, uid: string) => ({
  metadata: {
    labels: { 'cluster.x-k8s.io/cluster-name': name },
    ownerReferences: [{ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', name, uid }],
  },
});

/** An object of CAPA's templates, as loaded from the YAML clusterctl rendered. */
export type Unstructured = KubernetesObject & { spec?: Record<string, unknown> };

type V1beta1Ref = { apiVersion: string; kind: string; name: string };
const groupRef = ({ apiVersion, kind, name }: V1beta1Ref) => ({ apiGroup: apiVersion.split('/')[0], kind, name });

/**
 * A v1beta1 Cluster of CAPA's templates as Cluster API's conversion webhook, which the e2e does not run,
 * stores it at v1beta2: its references name their API group, and `topology.class` becomes
 * `topology.classRef.name`. Stored as written, the API server would drop both (kept only at v1beta1),
 * and clusterctl's create on a move's target, which validates the references, would be refused.
 */
export function clusterAsStoredAtV1beta2(cluster: Unstructured): Unstructured {
  const { infrastructureRef, controlPlaneRef, topology } = cluster.spec as {
    infrastructureRef?: V1beta1Ref;
    controlPlaneRef?: V1beta1Ref;
    topology?: { class: string };
  };
  const { class: className, ...rest } = topology ?? { class: undefined };
  return {
    ...cluster,
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    spec: {
      ...cluster.spec,
      ...(infrastructureRef ? { infrastructureRef: groupRef(infrastructureRef) } : {}),
      ...(controlPlaneRef ? { controlPlaneRef: groupRef(controlPlaneRef) } : {}),
      ...(topology ? { topology: { ...rest, classRef: { name: className } } } : {}),
    },
  };
}
