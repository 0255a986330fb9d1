import { namespaces } from '../resources/builtins/core.js';
import type { ResourceRegistry } from '../resources/registry.js';
import type { Objects } from '../storage/objects.js';
import type { StoreEvent } from '../storage/store.js';
import { arrayAt, objectAt, type JsonObject, text } from '../util/json.js';
import { later } from './background.js';

const NAMESPACE_FINALIZER = 'kubernetes';

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

  private finishIfEmpty(name: string): void {
    const empty = this.namespacedResources().every(
      (resource) => this.objects.store.list(resource.storageKey, name).next().done,
    );
    const namespace = this.objects.store.get(namespaces.storageKey, undefined, name);
    if (!empty || !namespace) return;
    const spec = objectAt(namespace, 'spec') ?? {};
    const finalizers = (arrayAt(spec, 'finalizers') ?? []).filter((finalizer) => finalizer !== NAMESPACE_FINALIZER);
    const next: JsonObject = { ...namespace, spec: { ...spec, finalizers } };
    this.objects.settle(namespaces, next);
  }
}
