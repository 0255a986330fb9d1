import type { ResourceRegistry } from '../resources/registry.js';
import { apiVersionOf, type ResourceDef } from '../resources/types.js';
import { FOREGROUND, ORPHAN, type Objects } from '../storage/objects.js';
import type { StoreEvent } from '../storage/store.js';
import { arrayAt, isObject, objectAt, type JsonObject, text } from '../util/json.js';
import type { ControllerAdmission, ControllerWrite } from './admission.js';
import { later } from './background.js';

/** The garbage collector's service account, as kube-controller-manager runs it. */
const COLLECTOR = 'generic-garbage-collector';

interface Location {
  storageKey: string;
  namespace: string | undefined;
  name: string;
}

const metadataOf = (object: JsonObject): JsonObject => objectAt(object, 'metadata') ?? {};
const ownerUids = (object: JsonObject): string[] =>
  (arrayAt(metadataOf(object), 'ownerReferences') ?? []).filter(isObject).map((reference) => text(reference.uid));
const locationOf = (storageKey: string, object: JsonObject): Location => ({
  storageKey,
  namespace: metadataOf(object).namespace as string | undefined,
  name: text(metadataOf(object).name),
});

/**
 * Owner-reference garbage collection: dependents of a deleted owner are deleted (background), or
 * deleted before it (foreground: the owner waits in `foregroundDeletion`), or kept without the
 * reference (orphan).
 */
export class GarbageCollector {
  /** Where each live object is, by uid. */
  private readonly objectsByUid = new Map<string, Location>();
  /** The uids of the dependents of each owner uid. */
  private readonly dependents = new Map<string, Set<string>>();

  constructor(
    private readonly registry: ResourceRegistry,
    private readonly objects: Objects,
    private readonly admission: ControllerAdmission,
  ) {}

  observe(event: StoreEvent): void {
    const uid = text(metadataOf(event.object).uid);
    for (const owner of event.previous ? ownerUids(event.previous) : []) this.dependents.get(owner)?.delete(uid);
    if (event.type === 'DELETED') {
      this.objectsByUid.delete(uid);
      later(() => this.ownerGone(uid));
      for (const owner of ownerUids(event.object)) later(() => this.checkOwner(owner));
      return;
    }
    this.objectsByUid.set(uid, locationOf(event.storageKey, event.object));
    for (const owner of ownerUids(event.object)) {
      const set = this.dependents.get(owner) ?? new Set<string>();
      set.add(uid);
      this.dependents.set(owner, set);
    }
    // New owner references are resolved, as the collector resolves them when they appear.
    const references = JSON.stringify(ownerUids(event.object));
    if (references !== '[]' && references !== JSON.stringify(event.previous ? ownerUids(event.previous) : []))
      later(() => this.checkDangling(uid));
    const finalizers = (arrayAt(metadataOf(event.object), 'finalizers') ?? []).map(String);
    if (
      metadataOf(event.object).deletionTimestamp &&
      (finalizers.includes(FOREGROUND) || finalizers.includes(ORPHAN))
    ) {
      later(() => this.checkOwner(uid));
    }
  }

  private resourceOf(storageKey: string): ResourceDef | undefined {
    return this.registry.sharing(storageKey)[0];
  }

  private find(uid: string): { resource: ResourceDef; object: JsonObject } | undefined {
    const location = this.objectsByUid.get(uid);
    const resource = location && this.resourceOf(location.storageKey);
    const object = location && this.objects.store.get(location.storageKey, location.namespace, location.name);
    return resource && object ? { resource, object } : undefined;
  }

  /** An owner is gone for good: delete its dependents, or just drop the reference when others own them too. */
  private ownerGone(owner: string): void {
    for (const dependentUid of [...(this.dependents.get(owner) ?? [])]) {
      const dependent = this.find(dependentUid);
      if (!dependent) continue;
      const remaining = ownerUids(dependent.object).filter((uid) => uid !== owner && this.objectsByUid.has(uid));
      if (remaining.length > 0) this.dropReferences(dependent.resource, dependent.object, [owner]);
      else this.deleteObject(dependent.resource, dependent.object);
    }
    this.dependents.delete(owner);
  }

  /**
   * A dependent referring to owners that do not exist where kube-controller-manager's collector looks
   * them up (by name, a namespaced owner in the dependent's namespace, then by uid): collected when no
   * owner is left, else those references are removed. A reference to a kind that is not served, or
   * from a cluster-scoped dependent to a namespaced kind, is left alone (the collector cannot resolve it).
   */
  private checkDangling(uid: string): void {
    const dependent = this.find(uid);
    if (!dependent || metadataOf(dependent.object).deletionTimestamp) return;
    const namespace = metadataOf(dependent.object).namespace;
    const references = (arrayAt(metadataOf(dependent.object), 'ownerReferences') ?? []).filter(isObject);
    const dangling = references.filter((reference) => {
      const kind = this.registry
        .all()
        .find((resource) => apiVersionOf(resource) === reference.apiVersion && resource.kind === reference.kind);
      if (!kind || (kind.namespaced && !namespace)) return false;
      const owner = this.objectsByUid.get(text(reference.uid));
      return !owner || owner.name !== reference.name || (kind.namespaced && owner.namespace !== namespace);
    });
    if (dangling.length === 0) return;
    if (dangling.length === references.length) this.deleteObject(dependent.resource, dependent.object);
    else
      this.dropReferences(
        dependent.resource,
        dependent.object,
        dangling.map((reference) => text(reference.uid)),
      );
  }

  /** A deleting owner with foregroundDeletion or orphan finalizers: act on its dependents, then release it. */
  private checkOwner(owner: string): void {
    const found = this.find(owner);
    if (!found || !metadataOf(found.object).deletionTimestamp) return;
    const finalizers = (arrayAt(metadataOf(found.object), 'finalizers') ?? []).map(String);
    const dependents = [...(this.dependents.get(owner) ?? [])]
      .map((uid) => this.find(uid))
      .filter((item) => item !== undefined);
    if (finalizers.includes(ORPHAN)) {
      for (const dependent of dependents) this.dropReferences(dependent.resource, dependent.object, [owner]);
      this.release(found.resource, found.object, ORPHAN);
    } else if (finalizers.includes(FOREGROUND)) {
      if (dependents.length === 0) this.release(found.resource, found.object, FOREGROUND);
      else
        for (const dependent of dependents)
          if (!metadataOf(dependent.object).deletionTimestamp) this.deleteObject(dependent.resource, dependent.object);
    }
  }

  /**
   * Whether admission lets the collector write (a policy may refuse it); a refused write is done
   * again, on the object as it is then, once policies change.
   */
  private admitted(write: ControllerWrite, again: (resource: ResourceDef, object: JsonObject) => void): boolean {
    if (!this.admission.refusal(COLLECTOR, write)) return true;
    const uid = text(metadataOf(write.oldObject!).uid);
    this.admission.retryLater(() => {
      const current = this.find(uid);
      if (current) again(current.resource, current.object);
    });
    return false;
  }

  private deleteObject(resource: ResourceDef, object: JsonObject): void {
    const { namespace, name } = locationOf(resource.storageKey, object);
    const oldObject = this.objects.serve(resource, object);
    const write: ControllerWrite = {
      operation: 'DELETE',
      resource,
      namespace,
      name,
      oldObject,
      propagationPolicy: 'Background',
    };
    if (!this.admitted(write, (current, live) => this.deleteObject(current, live))) return;
    this.objects.delete(resource, namespace, name, { propagationPolicy: 'Background' });
  }

  /** An update of the collector's (references or finalizers it removes), admitted first. */
  private update(
    resource: ResourceDef,
    object: JsonObject,
    next: JsonObject,
    again: (resource: ResourceDef, object: JsonObject) => void,
  ): void {
    const { namespace, name } = locationOf(resource.storageKey, object);
    const [oldObject, newObject] = [object, next].map((version) => this.objects.serve(resource, version));
    const write: ControllerWrite = { operation: 'UPDATE', resource, namespace, name, object: newObject, oldObject };
    if (this.admitted(write, again)) this.objects.settle(resource, next);
  }

  private dropReferences(resource: ResourceDef, object: JsonObject, owners: string[]): void {
    const metadata = metadataOf(object);
    const references = (arrayAt(metadata, 'ownerReferences') ?? []).filter(
      (reference) => !isObject(reference) || !owners.includes(text(reference.uid)),
    );
    const next: JsonObject = { ...object, metadata: { ...metadata, ownerReferences: references } };
    if (references.length === 0) delete (next.metadata as JsonObject).ownerReferences;
    this.update(resource, object, next, (current, live) => this.dropReferences(current, live, owners));
  }

  private release(resource: ResourceDef, object: JsonObject, finalizer: string): void {
    const metadata = metadataOf(object);
    const finalizers = (arrayAt(metadata, 'finalizers') ?? []).filter((item) => item !== finalizer);
    const next: JsonObject = { ...object, metadata: { ...metadata, finalizers } };
    if (finalizers.length === 0) delete (next.metadata as JsonObject).finalizers;
    this.update(resource, object, next, (current, live) => this.release(current, live, finalizer));
  }
}
