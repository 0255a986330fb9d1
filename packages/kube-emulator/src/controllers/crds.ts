import { customResourceDefinitions } from '../resources/builtins/apiextensions.js';
import { resourcesOfCrd } from '../resources/crd-definition.js';
import type { ResourceRegistry } from '../resources/registry.js';
import type { Objects } from '../storage/objects.js';
import type { StoreEvent } from '../storage/store.js';
import { arrayAt, objectAt, type JsonObject, text } from '../util/json.js';
import { later } from './background.js';

const CLEANUP = 'customresourcecleanup.apiextensions.k8s.io';

/**
 * Serves the resources of each CRD as soon as it is stored, and on CRD deletion deletes its objects
 * before releasing the CRD's cleanup finalizer (then the resources stop being served).
 */
export class CrdController {
  private readonly deleting = new Map<string, string>();

  constructor(
    private readonly registry: ResourceRegistry,
    private readonly objects: Objects,
  ) {}

  observe(event: StoreEvent): void {
    if (event.storageKey === customResourceDefinitions.storageKey) this.onCrd(event);
    else if (event.type === 'DELETED') {
      for (const [name, storageKey] of this.deleting) if (storageKey === event.storageKey) this.finishIfEmpty(name);
    }
  }

  private onCrd({ type, object }: StoreEvent): void {
    const name = text(objectAt(object, 'metadata')?.name);
    if (type === 'DELETED') {
      this.deleting.delete(name);
      this.registry.dropCrd(name);
      return;
    }
    const resources = resourcesOfCrd(object);
    this.registry.serveCrd(name, resources);
    if (objectAt(object, 'metadata')?.deletionTimestamp && resources[0] && !this.deleting.has(name)) {
      this.deleting.set(name, resources[0].storageKey);
      later(() => this.deleteInstances(name));
    }
  }

  private deleteInstances(name: string): void {
    const resource = this.registry.all().find((candidate) => candidate.crdName === name);
    if (!resource) return;
    for (const [, object] of [...this.objects.store.list(resource.storageKey)]) {
      const metadata = objectAt(object, 'metadata')!;
      this.objects.delete(resource, metadata.namespace as string | undefined, text(metadata.name), {});
    }
    this.finishIfEmpty(name);
  }

  private finishIfEmpty(name: string): void {
    const storageKey = this.deleting.get(name);
    if (storageKey === undefined || this.objects.store.count(storageKey) > 0) return;
    later(() => {
      const crd = this.objects.store.get(customResourceDefinitions.storageKey, undefined, name);
      if (!crd) return;
      const metadata = objectAt(crd, 'metadata')!;
      const finalizers = (arrayAt(metadata, 'finalizers') ?? []).filter((finalizer) => finalizer !== CLEANUP);
      const next: JsonObject = { ...crd, metadata: { ...metadata, finalizers } };
      this.objects.settle(customResourceDefinitions, next);
    });
  }
}
