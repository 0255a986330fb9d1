import { objectCountName, resourceQuotas, statusList } from '../resources/builtins/quota.js';
import type { ResourceRegistry } from '../resources/registry.js';
import type { ResourceDef } from '../resources/types.js';
import type { Objects } from '../storage/objects.js';
import type { StoreEvent } from '../storage/store.js';
import { deepEqual, objectAt, type JsonObject, text } from '../util/json.js';
import { later } from './background.js';

/**
 * kube-controller-manager's resourcequota controller, for object counts (`count/<resource>`): it
 * copies a quota's spec.hard to status.hard with the namespace's usage, when the spec changes and when
 * an object of the namespace goes (admission charges creates, the controller gives back deletes).
 */
export class ResourceQuotaController {
  /** Quotas (`namespace/name`) whose sync is scheduled: a namespace emptied at once counts them once. */
  private readonly pending = new Set<string>();

  constructor(
    private readonly registry: ResourceRegistry,
    private readonly objects: Objects,
  ) {}

  observe(event: StoreEvent): void {
    const metadata = objectAt(event.object, 'metadata');
    const namespace = metadata?.namespace;
    if (typeof namespace !== 'string') return;
    if (event.storageKey === resourceQuotas.storageKey) {
      if (event.type !== 'DELETED' && !synced(event.object)) this.schedule(namespace, text(metadata?.name));
    } else if (event.type === 'DELETED') {
      for (const [, quota] of this.objects.store.list(resourceQuotas.storageKey, namespace))
        this.schedule(namespace, text(objectAt(quota, 'metadata')?.name));
    }
  }

  private schedule(namespace: string, name: string): void {
    const key = `${namespace}/${name}`;
    if (this.pending.has(key)) return;
    this.pending.add(key);
    later(() => {
      this.pending.delete(key);
      this.sync(namespace, name);
    });
  }

  private sync(namespace: string, name: string): void {
    const quota = this.objects.store.get(resourceQuotas.storageKey, namespace, name);
    if (!quota) return;
    const hard = objectAt(objectAt(quota, 'spec'), 'hard') ?? {};
    const used: JsonObject = {};
    for (const resourceName of Object.keys(hard).sort()) {
      const resource = this.countedResource(resourceName);
      if (resource) used[resourceName] = String([...this.objects.store.list(resource.storageKey, namespace)].length);
    }
    const status = { hard, used };
    if (deepEqual(objectAt(quota, 'status'), status)) return;
    this.objects.settle(resourceQuotas, { ...quota, status }, 'status');
  }

  /** The namespaced resource an object-count name (`count/awsclusters.infrastructure.keymaster.dev`) counts. */
  private countedResource(resourceName: string): ResourceDef | undefined {
    return this.registry.all().find((resource) => resource.namespaced && objectCountName(resource) === resourceName);
  }
}

/** Whether a quota's status holds its spec's limits (the controller has seen this spec). */
const synced = (quota: JsonObject): boolean =>
  deepEqual(statusList(quota, 'hard') ?? {}, objectAt(objectAt(quota, 'spec'), 'hard') ?? {});
