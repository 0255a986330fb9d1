import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { GROUP, VERSION, type AWSCredentialsRequest, type IdentityKind } from '@keymaster/api';
import type { IdentityObject, IdentityResolver } from '@keymaster/identity';
import type { EventRecorder } from '../kube/events.js';
import { parkedAsRead } from '../kube/cache-transforms.js';
import { PLURAL, resourcePath } from '../kube/resources.js';
import type { KubeWriter } from '../kube/writer.js';
import type { Logger } from '../logging.js';
import type { Clock } from '../runtime/clock.js';
import { Controller, type ControllerOptions, type Request } from '../runtime/controller.js';
import { Informer, type InformerHandlers } from '../runtime/informer.js';
import type { KeptSecret } from './kept-secret.js';
import { REQUEST_LABEL } from './owned-secret.js';
import { CredentialsReconciler } from './reconciler.js';
import { RequestSecrets } from './request-secrets.js';
import { requestAsRead } from './request-as-read.js';
import { SecretWriter } from './secrets.js';
import { CredentialSetCap } from './set-cap.js';

export interface CredentialRequestsOptions {
  kubeConfig: KubeConfig;
  /** --watch-namespace: requests of this namespace only (default: all). */
  watchNamespace?: string;
  resyncMs: number;
  /** Requests served per namespace, the oldest first; the others are parked (`Informer`'s bound). */
  perNamespace: number;
  /** Told a namespace's count of parked requests whenever it changes. */
  requestsParked?: (namespace: string, parked: number) => void;
  clock: Clock;
  resolver: IdentityResolver;
  /** --max-credential-sets-per-namespace. */
  maxCredentialSetsPerNamespace: number;
  /** Told how many of a namespace's requests the cap refuses, after each change of its requests. */
  refusedByCap?: (namespace: string, refused: number) => void;
  identity: (kind: IdentityKind, name: string) => IdentityObject | undefined;
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
 * AWSCredentialsRequests: their informer, the watches of the Secrets they own (label-selected, per
 * namespace with requests, keeping no data: request-secrets.ts) and their controller.
 */
export class CredentialRequests {
  readonly requests: Informer<AWSCredentialsRequest>;
  readonly secrets: RequestSecrets;
  readonly controller: Controller;

  constructor(options: CredentialRequestsOptions) {
    const { kubeConfig, watchNamespace, resyncMs, clock } = options;
    const custom = kubeConfig.makeApiClient(CustomObjectsApi);
    const enqueue = (request: Request) => this.controller.enqueue(request);
    const ofRequest = (request: AWSCredentialsRequest) =>
      enqueue({ namespace: request.metadata.namespace ?? '', name: request.metadata.name ?? '' });
    const cap = new CredentialSetCap(options.maxCredentialSetsPerNamespace, (namespace, moved) => {
      for (const name of moved) enqueue({ namespace, name });
      options.refusedByCap?.(namespace, cap.refused(namespace));
    });
    const ofSecret = (secret: KeptSecret) =>
      enqueue({ namespace: secret.metadata.namespace, name: secret.metadata.labels[REQUEST_LABEL] });
    // A namespace's Secrets are watched from its first request to its last.
    const follow = (request: AWSCredentialsRequest) => this.secrets.follow(request.metadata.namespace ?? '');
    const requestHandlers: InformerHandlers<AWSCredentialsRequest> = {
      add: (request) => {
        follow(request);
        cap.track(request);
        ofRequest(request);
      },
      update: (request, previous) => {
        if (!changed(request, previous)) return;
        cap.track(request);
        ofRequest(request);
      },
      delete: (request) => {
        follow(request);
        cap.untrack(request);
        ofRequest(request);
      },
      resync: ofRequest,
      parked: ofRequest,
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
      transform: requestAsRead,
      bound: {
        perNamespace: options.perNamespace,
        park: parkedAsRead,
        ...(options.requestsParked ? { parkedChanged: options.requestsParked } : {}),
        // Read as the informer reads, with a list: the controller has no get on requests.
        fetch: async (name, namespace) => {
          const found = (await custom.listNamespacedCustomObject({
            ...list,
            namespace,
            fieldSelector: `metadata.name=${name}`,
          })) as { items: AWSCredentialsRequest[] };
          return found.items[0];
        },
      },
      resyncMs,
      clock,
      onError: (error, retryInMs) => options.onWatchError('AWSCredentialsRequests', error, retryInMs),
    });
    this.secrets = new RequestSecrets({
      kubeConfig,
      requests: this.requests,
      clock,
      onSecret: ofSecret,
      onAccess: (namespace) => this.enqueueNamespace(namespace),
      onWatchError: options.onWatchError,
    });
    const reconciler = new CredentialsReconciler({
      requests: this.requests,
      secrets: this.secrets,
      resolver: options.resolver,
      cap,
      identity: options.identity,
      writer: options.writer,
      secretWriter: new SecretWriter(kubeConfig),
      events: options.events,
      now: () => new Date(clock.now()),
      logger: options.logger,
      namespaceLimit: {
        plural: 'AWSCredentialsRequests',
        limit: options.perNamespace,
        flag: 'max-credentials-requests-per-namespace',
      },
    });
    this.controller = new Controller({
      ...options.controller,
      name: 'awscredentialsrequest',
      reconcile: options.guard?.(reconciler.reconcile) ?? reconciler.reconcile,
    });
  }

  /** The requests' cache is filled; each namespace's Secrets follow (a namespace without Secret rights must not hold the others up). */
  get synced(): boolean {
    return this.requests.synced;
  }

  async start(): Promise<void> {
    await this.requests.start();
    await this.requests.waitForSync();
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
