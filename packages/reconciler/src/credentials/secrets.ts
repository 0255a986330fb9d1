import { ApiException, CoreV1Api, type KubeConfig, type V1Secret } from '@kubernetes/client-node';
import type { KeptSecret } from './kept-secret.js';
import { REQUEST_LABEL, restoredSecret } from './owned-secret.js';

/**
 * The controller's calls on a request's Secret, in the request's own namespace only: the writes, and
 * the one read that brings back what the cache does not keep (the data, others' labels). Reads are
 * label-selected as the watch is: a Secret without the request label is never read.
 */
export class SecretWriter {
  readonly #core: CoreV1Api;

  constructor(kubeConfig: KubeConfig) {
    this.#core = kubeConfig.makeApiClient(CoreV1Api);
  }

  /** Creates the Secret; false when a Secret of that name already exists (never taken over). */
  async create(secret: V1Secret): Promise<boolean> {
    try {
      await this.#core.createNamespacedSecret({ namespace: secret.metadata!.namespace!, body: secret });
      return true;
    } catch (error) {
      if (error instanceof ApiException && error.code === 409) return false;
      throw error;
    }
  }

  /** The labelled Secret of that name as it is now, whole; undefined when there is none. */
  async read(namespace: string, name: string): Promise<V1Secret | undefined> {
    const { items } = await this.#core.listNamespacedSecret({
      namespace,
      fieldSelector: `metadata.name=${name}`,
      labelSelector: REQUEST_LABEL,
    });
    return items[0];
  }

  /**
   * Sets the Secret back to the desired one, keeping the labels and annotations others added, guarded
   * by the resourceVersion the cache saw: an edit since makes a 409, a deletion a 404 (both retried
   * once the cache has caught up).
   */
  async replace(live: KeptSecret, desired: V1Secret): Promise<void> {
    const { name, namespace, resourceVersion } = live.metadata;
    const current = await this.read(namespace, name);
    if (!current) throw new ApiException(404, `Secret ${namespace}/${name} is gone`, undefined, {});
    const body = restoredSecret(current, desired);
    body.metadata = Object.assign(body.metadata ?? {}, { resourceVersion });
    await this.#core.replaceNamespacedSecret({ name, namespace, body });
  }

  /** Deletes the Secret if it is still the one seen (its UID): never another created since under the same name. */
  async delete(secret: KeptSecret): Promise<void> {
    const { name, namespace, uid } = secret.metadata;
    try {
      await this.#core.deleteNamespacedSecret({ name, namespace, body: { preconditions: { uid } } });
    } catch (error) {
      if (!(error instanceof ApiException && (error.code === 404 || error.code === 409))) throw error;
    }
  }
}
