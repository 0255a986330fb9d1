import { CoreV1Api, type KubeConfig, type V1Secret } from '@kubernetes/client-node';
import type { AWSCredentialsRequest } from '@keymaster/api';
import { isForbidden } from '../kube/errors.js';
import type { Clock } from '../runtime/clock.js';
import { Informer } from '../runtime/informer.js';
import { keptSecret, type KeptSecret } from './kept-secret.js';
import { REQUEST_LABEL } from './owned-secret.js';

/**
 * Secrets per list page: a tenant's Secrets may be 1 MiB each, and a page is read whole before it is
 * kept as KeptSecrets (about 15 MiB at most, instead of every labelled Secret of the namespace at once).
 */
const PAGE_SIZE = 10;

/** Whether the controller may watch a namespace's Secrets: not known yet, yes (cache filled), or refused by RBAC. */
export type SecretAccess = 'Pending' | 'Granted' | 'Forbidden';

export interface RequestSecretsOptions {
  kubeConfig: KubeConfig;
  requests: Informer<AWSCredentialsRequest>;
  clock: Clock;
  /** A Secret of a request changed (or left the cache). */
  onSecret: (secret: KeptSecret) => void;
  /** A namespace's access turned Granted or Forbidden: its requests have something to say. */
  onAccess: (namespace: string) => void;
  onWatchError: (what: string, error: unknown, retryInMs: number) => void;
}

interface Watch {
  informer: Informer<KeptSecret, V1Secret>;
  access: SecretAccess;
}

/**
 * The Secrets of AWSCredentialsRequests, watched namespace by namespace while the namespace has
 * requests: the controller needs Secret rights only where vending is enabled (a RoleBinding per
 * namespace), and a namespace that did not grant them stops none other. Each watch is label-selected
 * and keeps only what kept-secret.ts keeps.
 */
export class RequestSecrets {
  readonly #options: RequestSecretsOptions;
  readonly #core: CoreV1Api;
  readonly #watches = new Map<string, Watch>();
  readonly #keep: (secret: V1Secret) => KeptSecret | undefined;

  constructor(options: RequestSecretsOptions) {
    this.#options = options;
    this.#core = options.kubeConfig.makeApiClient(CoreV1Api);
    this.#keep = keptSecret((namespace, name) => options.requests.get(name, namespace));
  }

  /** Watches the namespace's Secrets while it has requests; stops (and forgets them) when it has none. */
  follow(namespace: string): void {
    const wanted = this.#options.requests.list(namespace).length > 0;
    const watch = this.#watches.get(namespace);
    if (wanted && !watch) this.#start(namespace);
    if (!wanted && watch) {
      this.#watches.delete(namespace);
      void watch.informer.stop();
    }
  }

  access(namespace: string): SecretAccess {
    return this.#watches.get(namespace)?.access ?? 'Pending';
  }

  get(name: string, namespace: string): KeptSecret | undefined {
    return this.#watches.get(namespace)?.informer.get(name, namespace);
  }

  async stop(): Promise<void> {
    const watches = [...this.#watches.values()];
    this.#watches.clear();
    await Promise.all(watches.map(({ informer }) => informer.stop()));
  }

  #start(namespace: string): void {
    const { kubeConfig, clock, onSecret, onAccess, onWatchError } = this.#options;
    const watch: Watch = {
      access: 'Pending',
      informer: new Informer<KeptSecret, V1Secret>({
        kubeConfig,
        path: `/api/v1/namespaces/${namespace}/secrets`,
        labelSelector: REQUEST_LABEL,
        list: async (continueToken) => {
          const { items, metadata } = await this.#core.listNamespacedSecret({
            namespace,
            labelSelector: REQUEST_LABEL,
            limit: PAGE_SIZE,
            ...(continueToken ? { _continue: continueToken } : {}),
          });
          return { items, metadata: { resourceVersion: metadata?.resourceVersion, continue: metadata?._continue } };
        },
        transform: this.#keep,
        handlers: { add: onSecret, update: onSecret, delete: onSecret },
        resyncMs: 0,
        clock,
        onListed: () => {
          if (watch.access === 'Granted') return;
          watch.access = 'Granted';
          onAccess(namespace);
        },
        onError: (error, retryInMs) => {
          // Refused: said once, on the requests (retried until ops create the RoleBinding).
          if (isForbidden(error)) {
            if (watch.access === 'Forbidden') return;
            watch.access = 'Forbidden';
            onAccess(namespace);
          }
          onWatchError(`Secrets of ${namespace}`, error, retryInMs);
        },
      }),
    };
    this.#watches.set(namespace, watch);
    void watch.informer.start();
  }
}
