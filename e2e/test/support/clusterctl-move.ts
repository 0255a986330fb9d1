import type { KubernetesObject } from '@kubernetes/client-node';
import type { Kube } from './kube.js';
import { CONTROLLER_NAMESPACE, type KubeObject } from './objects.js';

const API_VERSION = 'infrastructure.keymaster.dev/v1beta1';
const IDENTITY_KINDS = ['AWSClusterControllerIdentity', 'AWSClusterStaticIdentity', 'AWSClusterRoleIdentity'];

/**
 * An object as clusterctl move re-creates it: the same spec, labels, annotations and finalizers,
 * without its resourceVersion, UID, status or owners (owners are rebuilt from the moved objects' new UIDs).
 */
function copyOf(object: KubernetesObject, ownerUids = new Map<string, string>()): KubeObject {
  const { metadata = {}, status, ...rest } = structuredClone(object) as KubernetesObject & { status?: unknown };
  const { uid, resourceVersion, creationTimestamp, generation, managedFields, ownerReferences, ...kept } = metadata;
  const owners = (ownerReferences ?? []).flatMap(({ apiVersion, kind, name, uid: ownerUid }) => {
    const moved = ownerUids.get(ownerUid);
    return moved ? [{ apiVersion, kind, name, uid: moved }] : [];
  });
  return { ...rest, metadata: { ...kept, ...(owners.length > 0 ? { ownerReferences: owners } : {}) } };
}

/**
 * Moves Keymaster's objects from one management cluster to another as `clusterctl move` does: the
 * identities, the Secrets they own (the controller makes a static identity the owner of its
 * Secret), and the AWSClusters, re-created with new UIDs and no status. The namespaces (with their
 * labels, which identities' selectors read) and the AWSTagPolicy are the target's preparation.
 */
export async function clusterctlMove(source: Kube, target: Kube, namespaces: string[]): Promise<void> {
  for (const name of namespaces)
    await target.create(copyOf(await source.read({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } })));
  const newUids = new Map<string, string>();
  for (const kind of [...IDENTITY_KINDS, 'AWSTagPolicy']) {
    for (const object of await source.list<KubernetesObject>(API_VERSION, kind)) {
      const [created] = await target.create(copyOf(object));
      newUids.set(object.metadata!.uid!, created!.metadata!.uid!);
    }
  }
  const secrets = await source.list<KubernetesObject>('v1', 'Secret', CONTROLLER_NAMESPACE);
  for (const secret of secrets.filter(({ metadata }) => metadata?.ownerReferences?.some(({ uid }) => newUids.has(uid))))
    await target.create(copyOf(secret, newUids));
  for (const cluster of await source.list<KubernetesObject>(API_VERSION, 'AWSCluster'))
    await target.create(copyOf(cluster));
}
