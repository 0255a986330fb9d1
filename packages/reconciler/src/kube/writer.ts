import {
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
  type V1OwnerReference,
} from '@kubernetes/client-node';
import { GROUP, VERSION, type AWSClusterLedger } from '@keymaster/api';
import { PLURAL, type KeymasterObject } from './resources.js';

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** Counts of the writes made, by kind of write: the benchmark's "kube API writes per cluster". */
export type WriteCounts = Record<'status' | 'finalizers' | 'create' | 'ownerReferences' | 'ledgers', number>;

/**
 * The writes the controller makes, each guarded by the object's resourceVersion, so that a write
 * based on a stale read fails with 409 Conflict and the reconcile is retried on fresh data.
 */
export class KubeWriter {
  readonly counts: WriteCounts = { status: 0, finalizers: 0, create: 0, ownerReferences: 0, ledgers: 0 };
  readonly #custom: CustomObjectsApi;
  readonly #core: CoreV1Api;

  constructor(kubeConfig: KubeConfig) {
    this.#custom = kubeConfig.makeApiClient(CustomObjectsApi);
    this.#core = kubeConfig.makeApiClient(CoreV1Api);
  }

  /** Replaces the status subresource; the object carries its resourceVersion. */
  async replaceStatus<T extends KeymasterObject>(object: T): Promise<T> {
    this.counts.status += 1;
    const { name = '', namespace } = object.metadata;
    const target = { group: GROUP, version: VERSION, plural: PLURAL[object.kind]!, name, body: object };
    return (await (namespace
      ? this.#custom.replaceNamespacedCustomObjectStatus({ ...target, namespace })
      : this.#custom.replaceClusterCustomObjectStatus(target))) as T;
  }

  async setFinalizers<T extends KeymasterObject>(object: T, finalizers: string[]): Promise<T> {
    this.counts.finalizers += 1;
    const { name = '', namespace, resourceVersion } = object.metadata;
    const body = { metadata: { finalizers, resourceVersion } };
    const target = { group: GROUP, version: VERSION, plural: PLURAL[object.kind]!, name, body };
    return (await (namespace
      ? this.#custom.patchNamespacedCustomObject({ ...target, namespace }, mergePatch)
      : this.#custom.patchClusterCustomObject(target, mergePatch))) as T;
  }

  /** Removes annotations from a cluster-scoped object (an identity's converted account claim), guarded by its resourceVersion. */
  async removeAnnotations<T extends KeymasterObject>(object: T, keys: readonly string[]): Promise<T> {
    const { name = '', resourceVersion } = object.metadata;
    const annotations = Object.fromEntries(keys.map((key) => [key, null]));
    return (await this.#custom.patchClusterCustomObject(
      {
        group: GROUP,
        version: VERSION,
        plural: PLURAL[object.kind]!,
        name,
        body: { metadata: { annotations, resourceVersion } },
      },
      mergePatch,
    )) as T;
  }

  async createClusterScoped<T extends KeymasterObject>(object: T): Promise<T> {
    this.counts.create += 1;
    return (await this.#custom.createClusterCustomObject({
      group: GROUP,
      version: VERSION,
      plural: PLURAL[object.kind]!,
      body: object,
    })) as T;
  }

  /** Creates an AWSClusterLedger, or replaces it when it carries a resourceVersion (guarded by it). */
  async writeLedger(ledger: AWSClusterLedger): Promise<AWSClusterLedger> {
    this.counts.ledgers += 1;
    const { name = '', namespace = '', resourceVersion } = ledger.metadata;
    const target = { group: GROUP, version: VERSION, plural: PLURAL['AWSClusterLedger']!, namespace, body: ledger };
    return (await (resourceVersion
      ? this.#custom.replaceNamespacedCustomObject({ ...target, name })
      : this.#custom.createNamespacedCustomObject(target))) as AWSClusterLedger;
  }

  async setSecretOwners(
    namespace: string,
    name: string,
    resourceVersion: string,
    ownerReferences: V1OwnerReference[],
  ): Promise<void> {
    this.counts.ownerReferences += 1;
    await this.#core.patchNamespacedSecret(
      { namespace, name, body: { metadata: { ownerReferences, resourceVersion } } },
      mergePatch,
    );
  }
}
