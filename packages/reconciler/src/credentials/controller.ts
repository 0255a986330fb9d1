import { CoreV1Api, CustomObjectsApi, type KubeConfig, type V1Secret } from '@kubernetes/client-node';
import { GROUP, VERSION, type AWSCredentialsRequest } from '@keymaster/api';
import type { IdentityObject, IdentityResolver } from '@keymaster/identity';
import type { EventRecorder } from '../kube/events.js';
import { PLURAL, resourcePath } from '../kube/resources.js';
import type { KubeWriter } from '../kube/writer.js';
import type { Logger } from '../logging.js';
import type { Clock } from '../runtime/clock.js';
import { Controller, type ControllerOptions, type Request } from '../runtime/controller.js';
import { Informer, type InformerHandlers } from '../runtime/informer.js';
import { REQUEST_LABEL } from './owned-secret.js';
import { CredentialsReconciler } from './reconciler.js';
import { SecretWriter } from './secrets.js';

export interface CredentialRequestsOptions {
  kubeConfig: KubeConfig;
  /** --watch-namespace: requests of this namespace only (default: all). */
  watchNamespace?: string;
  resyncMs: number;
  clock: Clock;
  resolver: IdentityResolver;
  identity: (kind: 'AWSClusterWebIdentity', name: string) => IdentityObject | undefined;
  writer: KubeWriter;
  events: EventRecorder;
  logger: Logger;
  onWatchError: (what: string, error: unknown, retryInMs: number) => void;
  /** The manager's controller options: clock, metrics, error handling, shard filter. */
  controller: Omit<ControllerOptions, 'name' | 'reconcile' | 'workers'> & { workers: number };
  /** Wraps the reconcile (the shard guard), if given. */
  guard?: (reconcile: ControllerOptions['reconcile']) => ControllerOptions['reconcile'];
}

type Meta = { metadata: { generation?: number; finalizers?: string[]; deletionTimestamp?: unknown } };
const changed = (object: Meta, previous: Meta | undefined) =>
  !previous ||
  object.metadata.generation !== previous.metadata.generation ||
  object.metadata.deletionTimestamp !== previous.metadata.deletionTimestamp ||
  (object.metadata.finalizers ?? []).join() !== (previous.metadata.finalizers ?? []).join();

/**
 * AWSCredentialsRequests: their informer, the informer of the Secrets they own (a label-selected
 * watch: the controller never lists or caches another Secret of a tenant namespace) and their controller.
 */
export class CredentialRequests {
  readonly requests: Informer<AWSCredentialsRequest>;
  readonly secrets: Informer<V1Secret>;
  readonly controller: Controller;

  constructor(options: CredentialRequestsOptions) {
    const { kubeConfig, watchNamespace, resyncMs, clock } = options;
    const custom = kubeConfig.makeApiClient(CustomObjectsApi);
    const core = kubeConfig.makeApiClient(CoreV1Api);
    const enqueue = (request: Request) => this.controller.enqueue(request);
    const ofRequest = (request: AWSCredentialsRequest) =>
      enqueue({ namespace: request.metadata.namespace ?? '', name: request.metadata.name ?? '' });
    const ofSecret = (secret: V1Secret) => {
      const owner = secret.metadata?.labels?.[REQUEST_LABEL];
      if (owner) enqueue({ namespace: secret.metadata?.namespace ?? '', name: owner });
    };
    const requestHandlers: InformerHandlers<AWSCredentialsRequest> = {
      add: ofRequest,
      update: (request, previous) => {
        if (changed(request, previous)) ofRequest(request);
      },
      delete: ofRequest,
      resync: ofRequest,
    };
    const list = { group: GROUP, version: VERSION, plural: PLURAL['AWSCredentialsRequest']! };
    this.requests = new Informer<AWSCredentialsRequest>({
      kubeConfig,
      path: resourcePath('AWSCredentialsRequest', watchNamespace),
      list: () =>
        (watchNamespace
          ? custom.listNamespacedCustomObject({ ...list, namespace: watchNamespace })
          : custom.listClusterCustomObject(list)) as Promise<{ items: AWSCredentialsRequest[] }>,
      handlers: requestHandlers,
      resyncMs,
      clock,
      onError: (error, retryInMs) => options.onWatchError('AWSCredentialsRequests', error, retryInMs),
    });
    this.secrets = new Informer<V1Secret>({
      kubeConfig,
      path: watchNamespace ? `/api/v1/namespaces/${watchNamespace}/secrets` : '/api/v1/secrets',
      labelSelector: REQUEST_LABEL,
      list: () =>
        watchNamespace
          ? core.listNamespacedSecret({ namespace: watchNamespace, labelSelector: REQUEST_LABEL })
          : core.listSecretForAllNamespaces({ labelSelector: REQUEST_LABEL }),
      handlers: { add: ofSecret, update: ofSecret, delete: ofSecret },
      resyncMs: 0,
      clock,
      onError: (error, retryInMs) => options.onWatchError('credentials Secrets', error, retryInMs),
    });
    const reconciler = new CredentialsReconciler({
      requests: this.requests,
      secrets: this.secrets,
      resolver: options.resolver,
      identity: options.identity,
      writer: options.writer,
      secretWriter: new SecretWriter(kubeConfig),
      events: options.events,
      now: () => new Date(clock.now()),
      logger: options.logger,
    });
    this.controller = new Controller({
      ...options.controller,
      name: 'awscredentialsrequest',
      reconcile: options.guard?.(reconciler.reconcile) ?? reconciler.reconcile,
    });
  }

  get synced(): boolean {
    return this.requests.synced && this.secrets.synced;
  }

  async start(): Promise<void> {
    await Promise.all([this.requests.start(), this.secrets.start()]);
    await Promise.all([this.requests.waitForSync(), this.secrets.waitForSync()]);
  }

  async stop(): Promise<void> {
    await Promise.all([this.requests.stop(), this.secrets.stop()]);
  }

  /** After an identity changed: every request (identities are few; a reconcile reads caches until it calls STS). */
  enqueueAll(): void {
    for (const request of this.requests.list())
      this.controller.enqueue({ namespace: request.metadata.namespace ?? '', name: request.metadata.name ?? '' });
  }

  /** After a namespace's labels changed (allowedNamespaces selectors): its requests. */
  enqueueNamespace(namespace: string): void {
    for (const request of this.requests.list(namespace))
      this.controller.enqueue({ namespace, name: request.metadata.name ?? '' });
  }
}
