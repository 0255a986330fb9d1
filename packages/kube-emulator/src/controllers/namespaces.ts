import { namespaces } from '../resources/builtins/core.js';
import type { ResourceRegistry } from '../resources/registry.js';
import type { Objects } from '../storage/objects.js';
import type { StoreEvent } from '../storage/store.js';
import { now } from '../resources/prepare.js';
import { arrayAt, deepEqual, isObject, objectAt, type JsonObject, text } from '../util/json.js';
import { later } from './background.js';

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
    condition(
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

  constructor(
    private readonly registry: ResourceRegistry,
    private readonly objects: Objects,
  ) {}

  observe(event: StoreEvent): void {
    if (event.storageKey === namespaces.storageKey) {
      const name = text(objectAt(event.object, 'metadata')?.name);
      if (event.type === 'DELETED') this.terminating.delete(name);
      else if (objectAt(event.object, 'metadata')?.deletionTimestamp && !this.terminating.has(name)) {
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

  private emptyNamespace(name: string): void {
    // As kube-controller-manager: a namespace whose `kubernetes` finalizer is gone is not its to empty.
    const namespace = this.objects.store.get(namespaces.storageKey, undefined, name);
    if (!(arrayAt(objectAt(namespace, 'spec'), 'finalizers') ?? []).includes(NAMESPACE_FINALIZER)) return;
    for (const resource of this.namespacedResources()) {
      for (const [, object] of [...this.objects.store.list(resource.storageKey, name)]) {
        const metadata = objectAt(object, 'metadata')!;
        if (!metadata.deletionTimestamp) this.objects.delete(resource, name, text(metadata.name), {});
      }
    }
    this.finishIfEmpty(name);
  }

  /** What is left in a namespace: objects per resource (`configmaps.`, `awsclusters.group`) and per finalizer. */
  private remaining(name: string): { resources: Map<string, number>; finalizers: Map<string, number> } {
    const resources = new Map<string, number>();
    const finalizers = new Map<string, number>();
    for (const resource of this.namespacedResources()) {
      for (const [, object] of this.objects.store.list(resource.storageKey, name)) {
        const key = `${resource.plural}.${resource.group}`;
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
    const conditions = namespaceConditions(
      resources.size === 0
        ? undefined
        : `Some resources are remaining: ${listed(resources, (key, count) => `${key} has ${count} resource instances`)}`,
      finalizers.size === 0
        ? undefined
        : `Some content in the namespace has finalizers remaining: ${listed(finalizers, (key, count) => `${key} in ${count} resource instances`)}`,
      objectAt(namespace, 'status'),
    );
    if (deepEqual(objectAt(namespace, 'status')?.conditions, conditions)) return;
    this.objects.settle(
      namespaces,
      { ...namespace, status: { ...objectAt(namespace, 'status'), conditions } },
      'status',
    );
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
    this.objects.settle(namespaces, next, 'finalize');
  }
}
