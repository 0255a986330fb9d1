import { ApiException, CoreV1Api, type KubeConfig, type V1Secret } from '@kubernetes/client-node';

/** The three writes the controller makes to a request's Secret, in the request's own namespace only. */
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

  /** Replaces the Secret, guarded by its resourceVersion (a concurrent edit makes a 409 and a retry). */
  async replace(secret: V1Secret): Promise<void> {
    const { name = '', namespace = '' } = secret.metadata ?? {};
    await this.#core.replaceNamespacedSecret({ name, namespace, body: secret });
  }

  /** Deletes the Secret if it is still the one seen (its UID): never another created since under the same name. */
  async delete(secret: V1Secret): Promise<void> {
    const { name = '', namespace = '', uid } = secret.metadata ?? {};
    try {
      await this.#core.deleteNamespacedSecret({ name, namespace, body: { preconditions: { uid } } });
    } catch (error) {
      if (!(error instanceof ApiException && (error.code === 404 || error.code === 409))) throw error;
    }
  }
}
