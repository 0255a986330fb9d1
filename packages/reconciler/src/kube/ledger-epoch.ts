import { ApiextensionsV1Api, type KubeConfig } from '@kubernetes/client-node';
import { GROUP, KINDS, type AWSCluster } from '@keymaster/api';

/** The ledger CRD's name: the one CRD the controller reads (its creation time). */
export const LEDGER_CRD = `${KINDS.find(({ kind }) => kind === 'AWSClusterLedger')!.plural}.${GROUP}`;

/**
 * When the AWSClusterLedger CRD was created: the upgrade from releases that kept their bookkeeping
 * in tags. Only an AWSCluster created before it can have been tagged by such a release, so only its
 * resources' legacy tags are converted; on any later cluster, they were written by someone else.
 */
export async function readLedgerEpoch(kubeConfig: KubeConfig): Promise<Date> {
  const crd = await kubeConfig.makeApiClient(ApiextensionsV1Api).readCustomResourceDefinition({ name: LEDGER_CRD });
  return new Date(crd.metadata!.creationTimestamp!);
}

/** Whether the cluster was created before the epoch (creation times count whole seconds: the same second is not before). */
export const createdBefore = (cluster: AWSCluster, epoch: Date | undefined): boolean =>
  epoch !== undefined &&
  cluster.metadata.creationTimestamp !== undefined &&
  Date.parse(cluster.metadata.creationTimestamp) < epoch.getTime();
