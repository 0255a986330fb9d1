import { namespaces } from '../resources/builtins/core.js';
import type { ResourceRegistry } from '../resources/registry.js';
import type { Objects } from '../storage/objects.js';
import type { StoreEvent } from '../storage/store.js';
import { now } from '../resources/prepare.js';
import { arrayAt, deepEqual, isObject, objectAt, type JsonObject, text } from '../util/json.js';
import type { ControllerAdmission } from './admission.js';
import { later } from './background.js';

/** The namespace controller's service account, as kube-controller-manager runs it. */
const CONTROLLER = 'namespace-controller';

/** A resource as the namespace controller's messages name it: `configmaps.`, `awsclusters.group`. */
const keyOf = (resource: { plural: string; group: string }): string => `${resource.plural}.${resource.group}`;

const NAMESPACE_FINALIZER = 'kubernetes';

const condition = (type: string, status: string, reason: string, message: string): JsonObject => ({
  type,
  status,
  lastTransitionTime: now(),
  reason,
  message,
});

/**
 * The five conditions of a terminating namespace, as the namespace controller writes them; a
 * condition whose status did not change keeps its lastTransitionTime.
 */
function namespaceConditions(
  contentFailure: string | undefined,
  resourcesRemaining: string | undefined,
  finalizersRemaining: string | undefined,
  status: JsonObject | undefined,
): JsonObject[] {
  const fresh = [
    condition(
      'NamespaceDeletionDiscoveryFailure',
      'False',
      'ResourcesDiscovered',
      'All resources successfully discovered',
    ),
    condition(
      'NamespaceDeletionGroupVersionParsingFailure',
      'False',
      'ParsedGroupVersions',
      'All legacy kube types successfully parsed',
    ),
    contentFailure
      ? condition('NamespaceDeletionContentFailure', 'True', 'ContentDeletionFailed', contentFailure)
      : condition(
          'NamespaceDeletionContentFailure',
          'False',
          'ContentDeleted',
          'All content successfully deleted, may be waiting on finalization',
        ),
    resourcesRemaining
      ? condition('NamespaceContentRemaining', 'True', 'SomeResourcesRemain', resourcesRemaining)
      : condition('NamespaceContentRemaining', 'False', 'ContentRemoved', 'All content successfully removed'),
    finalizersRemaining
      ? condition('NamespaceFinalizersRemaining', 'True', 'SomeFinalizersRemain', finalizersRemaining)
      : condition(
          'NamespaceFinalizersRemaining',
          'False',
          'ContentHasNoFinalizers',
          'All content-preserving finalizers finished',
        ),
  ];
  const previous = (arrayAt(status, 'conditions') ?? []).filter(isObject);
  return fresh.map((next) => {
    const before = previous.find((old) => old.type === next.type);
    return before && before.status === next.status
      ? { ...next, lastTransitionTime: before.lastTransitionTime ?? null }
      : next;
  });
}

/** Namespaces that exist from the start, as on a new cluster. */
export const INITIAL_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

/**
 * Terminates namespaces: once one is deleted, deletes everything in it, and when it is empty
 * releases its `kubernetes` finalizer so it goes away.
 */
export class NamespaceController {
  private readonly terminating = new Set<string>();
  /** Per terminating namespace, the resources whose deletion admission refused, with the refusal. */
  private readonly refused = new Map<string, Map<string, string>>();

  constructor(
    private readonly registry: ResourceRegistry,
    private readonly objects: Objects,
    private readonly admission: ControllerAdmission,
  ) {}

  observe(event: StoreEvent): void {
    if (event.storageKey === namespaces.storageKey) {
      const name = text(objectAt(event.object, 'metadata')?.name);
      if (event.type === 'DELETED') {
        this.terminating.delete(name);
        this.refused.delete(name);
      } else if (objectAt(event.object, 'metadata')?.deletionTimestamp && !this.terminating.has(name)) {
        this.terminating.add(name);
        later(() => this.emptyNamespace(name));
      }
      return;
    }
    const namespace = objectAt(event.object, 'metadata')?.namespace;
    if (event.type === 'DELETED' && typeof namespace === 'string' && this.terminating.has(namespace)) {
      later(() => this.finishIfEmpty(namespace));
    }
  }

  /** One resource definition per stored collection of namespaced objects. */
  private namespacedResources() {
    const byStorage = new Map(
      this.registry
        .all()
        .filter((resource) => resource.namespaced)
        .map((resource) => [resource.storageKey, resource]),
    );
    return [...byStorage.values()];
  }

  /**
   * Deletes a terminating namespace's content, as kube-controller-manager's deletecollection of each
   * resource: admitted object by object (without a name) in name order; a refused object and those
   * after it stay, and their resource is reported in the namespace's NamespaceDeletionContentFailure
   * condition until policies change.
   */
  private emptyNamespace(name: string): void {
    // As kube-controller-manager: a namespace whose `kubernetes` finalizer is gone is not its to empty.
    const namespace = this.objects.store.get(namespaces.storageKey, undefined, name);
    if (!(arrayAt(objectAt(namespace, 'spec'), 'finalizers') ?? []).includes(NAMESPACE_FINALIZER)) return;
    const refused = new Map<string, string>();
    for (const resource of this.namespacedResources()) {
      for (const [, object] of [...this.objects.store.list(resource.storageKey, name)]) {
        const metadata = objectAt(object, 'metadata')!;
        if (metadata.deletionTimestamp) continue;
        const oldObject = this.objects.serve(resource, object);
        const write = { resource, namespace: name, name: '', oldObject, propagationPolicy: 'Background' };
        const refusal = this.admission.refusal(CONTROLLER, { operation: 'DELETE', ...write });
        if (refusal) {
          // kube-apiserver's deletecollection (one worker) stops at the first object it may not delete.
          refused.set(keyOf(resource), refusal.message);
          break;
        }
        this.objects.delete(resource, name, text(metadata.name), { propagationPolicy: 'Background' });
      }
    }
    if (refused.size > 0) {
      this.refused.set(name, refused);
      this.admission.retryLater(() => this.emptyNamespace(name));
    } else this.refused.delete(name);
    this.finishIfEmpty(name);
  }

  /**
   * What is left in a namespace: objects per resource (`configmaps.`, `awsclusters.group`) and per
   * finalizer. A resource whose deletion was refused counts for nothing (kube-controller-manager
   * reports its error instead).
   */
  private remaining(name: string): { resources: Map<string, number>; finalizers: Map<string, number> } {
    const resources = new Map<string, number>();
    const finalizers = new Map<string, number>();
    const refused = this.refused.get(name);
    for (const resource of this.namespacedResources()) {
      const key = keyOf(resource);
      if (refused?.has(key)) continue;
      for (const [, object] of this.objects.store.list(resource.storageKey, name)) {
        resources.set(key, (resources.get(key) ?? 0) + 1);
        for (const finalizer of (arrayAt(objectAt(object, 'metadata'), 'finalizers') ?? []).map(text)) {
          finalizers.set(finalizer, (finalizers.get(finalizer) ?? 0) + 1);
        }
      }
    }
    return { resources, finalizers };
  }

  /** The namespace's conditions as kube-controller-manager's namespace controller writes them. */
  private reportConditions(name: string): void {
    const namespace = this.objects.store.get(namespaces.storageKey, undefined, name);
    if (!namespace) return;
    const { resources, finalizers } = this.remaining(name);
    const listed = (counts: Map<string, number>, format: (key: string, count: number) => string): string =>
      [...counts]
        .map(([key, count]) => format(key, count))
        .sort()
        .join(', ');
    const refused = [...(this.refused.get(name)?.values() ?? [])].sort();
    const conditions = namespaceConditions(
      refused.length === 0
        ? undefined
        : `Failed to delete all resource types, ${refused.length} remaining: ${refused.join(', ')}`,
      resources.size === 0
        ? undefined
        : `Some resources are remaining: ${listed(resources, (key, count) => `${key} has ${count} resource instances`)}`,
      finalizers.size === 0
        ? undefined
        : `Some content in the namespace has finalizers remaining: ${listed(finalizers, (key, count) => `${key} in ${count} resource instances`)}`,
      objectAt(namespace, 'status'),
    );
    if (deepEqual(objectAt(namespace, 'status')?.conditions, conditions)) return;
    this.write(namespace, { ...namespace, status: { ...objectAt(namespace, 'status'), conditions } }, 'status');
  }

  /** A write to the namespace's status or finalize subresource, admitted first (refused: tried again later). */
  private write(namespace: JsonObject, next: JsonObject, subresource: 'status' | 'finalize'): void {
    const name = text(objectAt(namespace, 'metadata')?.name);
    const [oldObject, object] = [namespace, next].map((version) => this.objects.serve(namespaces, version));
    const write = {
      operation: 'UPDATE',
      resource: namespaces,
      subresource,
      namespace: name,
      name,
      object,
      oldObject,
    } as const;
    if (this.admission.refusal(CONTROLLER, write)) {
      this.admission.retryLater(() => this.finishIfEmpty(name));
      return;
    }
    this.objects.settle(namespaces, next, subresource);
  }

  private finishIfEmpty(name: string): void {
    const empty = this.namespacedResources().every(
      (resource) => this.objects.store.list(resource.storageKey, name).next().done,
    );
    this.reportConditions(name);
    const namespace = this.objects.store.get(namespaces.storageKey, undefined, name);
    if (!empty || !namespace) return;
    const spec = objectAt(namespace, 'spec') ?? {};
    const finalizers = (arrayAt(spec, 'finalizers') ?? []).filter((finalizer) => finalizer !== NAMESPACE_FINALIZER);
    const next: JsonObject = { ...namespace, spec: { ...spec, finalizers } };
    // Go's omitempty: a namespace without finalizers has an empty spec.
    if (finalizers.length === 0) delete (next.spec as JsonObject).finalizers;
    this.write(namespace, next, 'finalize');
  }
}
