import type { KubernetesObject, V1CustomResourceDefinition } from '@kubernetes/client-node';
import type { Kube } from './kube.js';
import type { KubeObject } from './objects.js';

/** The labels clusterctl reads, on a CRD (every object of the kind) or on one object. */
export const CLUSTERCTL_LABEL = 'clusterctl.cluster.x-k8s.io';
export const MOVE_LABEL = 'clusterctl.cluster.x-k8s.io/move';
export const MOVE_HIERARCHY_LABEL = 'clusterctl.cluster.x-k8s.io/move-hierarchy';
const DELETE_FOR_MOVE = 'clusterctl.cluster.x-k8s.io/delete-for-move';

interface DiscoveryType {
  apiVersion: string;
  kind: string;
  namespaced: boolean;
  labels: Record<string, string>;
}

/** One discovered object, as clusterctl's object graph holds it. */
interface Node {
  object: KubernetesObject;
  /** Cluster-scoped: shared by every namespace, so never deleted from the source. */
  global: boolean;
  forceMove: boolean;
  forceMoveHierarchy: boolean;
}

export interface MoveOptions {
  /**
   * Namespaces of the infrastructure providers in clusterctl's inventory (the `Provider` objects
   * `clusterctl init` writes): their Secrets are discovered too. Keymaster installed with
   * `kubectl apply -k deploy` is in no inventory, so by default none.
   */
  providerNamespaces?: string[];
}

/** The kinds clusterctl looks at: those of CRDs labelled `clusterctl.cluster.x-k8s.io` (storage version), Secrets and ConfigMaps. */
async function discoveryTypes(source: Kube): Promise<DiscoveryType[]> {
  const crds = await source.list<V1CustomResourceDefinition>('apiextensions.k8s.io/v1', 'CustomResourceDefinition');
  const labelled = crds.filter(({ metadata }) => metadata?.labels?.[CLUSTERCTL_LABEL] !== undefined);
  return [
    ...labelled.flatMap(({ metadata, spec }) =>
      spec.versions
        .filter(({ storage }) => storage)
        .map(({ name }) => ({
          apiVersion: `${spec.group}/${name}`,
          kind: spec.names.kind,
          namespaced: spec.scope === 'Namespaced',
          labels: metadata?.labels ?? {},
        })),
    ),
    { apiVersion: 'v1', kind: 'Secret', namespaced: true, labels: {} },
    { apiVersion: 'v1', kind: 'ConfigMap', namespaced: true, labels: {} },
  ];
}

async function discover(source: Kube, namespace: string, options: MoveOptions): Promise<Node[]> {
  const nodes: Node[] = [];
  for (const type of await discoveryTypes(source)) {
    const namespaces = type.namespaced
      ? [namespace, ...(type.kind === 'Secret' ? (options.providerNamespaces ?? []) : [])]
      : [undefined];
    for (const where of new Set(namespaces))
      for (const object of await source.list<KubernetesObject>(type.apiVersion, type.kind, where)) {
        const labels = { ...type.labels, ...object.metadata?.labels };
        nodes.push({
          object: { ...object, apiVersion: type.apiVersion, kind: type.kind },
          global: !type.namespaced,
          forceMove: MOVE_LABEL in labels,
          forceMoveHierarchy: MOVE_HIERARCHY_LABEL in labels,
        });
      }
  }
  return nodes;
}

/**
 * What clusterctl moves, and what it leaves in the source afterwards: objects below a
 * `move-hierarchy` object in the ownerReference graph (the root included), and objects labelled
 * `move`. Objects below a cluster-scoped root stay in the source too (a copy is made).
 */
function plan(nodes: Node[]): { moved: Node[]; kept: Set<Node> } {
  const owns = (owner: Node, node: Node) =>
    (node.object.metadata?.ownerReferences ?? []).some(({ uid }) => uid === owner.object.metadata?.uid);
  const below = (root: Node): Set<Node> => {
    const found = new Set([root]);
    for (const owner of found) for (const node of nodes) if (owns(owner, node)) found.add(node);
    return found;
  };
  const inHierarchy = new Set<Node>();
  const kept = new Set(nodes.filter((node) => node.global));
  for (const root of nodes.filter((node) => node.forceMoveHierarchy))
    for (const node of below(root)) {
      inHierarchy.add(node);
      if (root.global) kept.add(node);
    }
  return { moved: nodes.filter((node) => inHierarchy.has(node) || node.forceMove), kept };
}

/** Owners before what they own, so that ownerReferences can name the owners' new UIDs. */
function ownersFirst(moved: Node[]): Node[] {
  const uids = new Set(moved.map(({ object }) => object.metadata?.uid));
  const ordered: Node[] = [];
  const placed = new Set<string | undefined>();
  while (ordered.length < moved.length) {
    const ready = moved.filter(
      ({ object }) =>
        !placed.has(object.metadata?.uid) &&
        (object.metadata?.ownerReferences ?? []).every(({ uid }) => !uids.has(uid) || placed.has(uid)),
    );
    if (ready.length === 0) throw new Error('ownerReferences form a cycle');
    for (const { object } of ready) placed.add(object.metadata?.uid);
    ordered.push(...ready);
  }
  return ordered;
}

/** The object as clusterctl creates it in the target: no UID, resourceVersion or status; owners by their new UIDs. */
function copyOf({ object }: Node, newUids: Map<string, string>): KubeObject {
  const { metadata = {}, status, ...rest } = structuredClone(object) as KubernetesObject & { status?: unknown };
  const { uid, resourceVersion, creationTimestamp, generation, managedFields, ownerReferences, ...kept } = metadata;
  const owners = (ownerReferences ?? []).map((owner) => {
    const moved = newUids.get(owner.uid);
    if (!moved)
      throw new Error(`${object.kind}/${kept.name}: owner ${owner.kind}/${owner.name} is not moved (not modelled)`);
    const { apiVersion, kind, name, controller, blockOwnerDeletion } = owner;
    return { apiVersion, kind, name, uid: moved, controller, blockOwnerDeletion };
  });
  return { ...rest, metadata: { ...kept, ...(owners.length > 0 ? { ownerReferences: owners } : {}) } };
}

const exists = (error: unknown) => (error as { code?: number }).code === 409;

/**
 * `clusterctl move --namespace <namespace>` from one management cluster to another, as clusterctl's
 * object graph and mover do it (Cluster API's own roots, Cluster and ClusterResourceSet, are not
 * modelled: these worlds have none). Discovery: every object of the namespace, of a kind above;
 * every cluster-scoped object of those kinds; Secrets of `providerNamespaces`. The plan above is
 * created in the target (the namespace bare if missing; cluster-scoped objects already there are
 * left as they are), then deleted from the source, dependents first, after an annotation and with
 * finalizers removed, except what `plan` keeps. Pausing, and the namespace's labels, are the
 * operator's business.
 */
export async function clusterctlMove(
  source: Kube,
  target: Kube,
  namespace: string,
  options: MoveOptions = {},
): Promise<void> {
  const { moved, kept } = plan(await discover(source, namespace, options));
  await target
    .create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } })
    .catch((error: unknown) => {
      if (!exists(error)) throw error;
    });
  const newUids = new Map<string, string>();
  const sequence = ownersFirst(moved);
  for (const node of sequence) {
    const copy = copyOf(node, newUids);
    const created = await target.create(copy).then(
      ([object]) => object!,
      async (error: unknown) => {
        if (!node.global || !exists(error)) throw error;
        return target.read<KubernetesObject>(copy);
      },
    );
    newUids.set(node.object.metadata!.uid!, created.metadata!.uid!);
  }
  for (const { object } of sequence.toReversed().filter((node) => !kept.has(node))) {
    await source.patch(object, { metadata: { annotations: { [DELETE_FOR_MOVE]: '' }, finalizers: null } });
    await source.delete(object);
  }
}
