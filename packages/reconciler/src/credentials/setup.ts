import { CustomObjectsApi, type V1Namespace, type V1Secret } from '@kubernetes/client-node';
import { GROUP, VERSION, type AWSCredentialsRequest } from '@keymaster/api';
import type { IdentityObject } from '@keymaster/identity';
import type { ControllerContext } from '../context.js';
import { parkedAsRead } from '../kube/cache-transforms.js';
import { fetchByList } from '../kube/fetch-by-list.js';
import { PLURAL, resourcePath } from '../kube/resources.js';
import { controllerFor, requestFor } from '../runtime/builder.js';
import { Channel } from '../runtime/channel.js';
import type { Request } from '../runtime/controller.js';
import { Informer } from '../runtime/informer.js';
import {
  anyOf,
  deletionChanged,
  finalizersChanged,
  generationChanged,
  labelsChanged,
  specOrMetadataChanged,
} from '../runtime/predicates.js';
import { objectKey } from '../runtime/object-key.js';
import { shardOf } from '../runtime/shard-assignment.js';
import { REQUEST_LABEL } from './owned-secret.js';
import { CredentialsReconciler } from './reconciler.js';
import { RequestSecrets } from './request-secrets.js';
import { requestAsRead } from './request-as-read.js';
import { SecretWriter } from './secrets.js';
import { CredentialSetCap } from './set-cap.js';

/** What the reconcile of a request acts on: its spec, its finalizers, its deletion (not labels or annotations). */
const requestChanged = anyOf(generationChanged, finalizersChanged, deletionChanged);

/**
 * The AWSCredentialsRequest controller: the requests' informer (bounded per namespace), the watches
 * of the Secrets they own (label-selected, per namespace with requests, keeping no data:
 * request-secrets.ts), and the changes elsewhere that concern requests. Sharded by namespace/name.
 */
export function setupCredentialsRequestController(context: ControllerContext): {
  requests: Informer<AWSCredentialsRequest>;
  secrets: RequestSecrets;
} {
  const { manager, caches, options, clock } = context;
  const { kubeConfig, watchNamespace, logger, metrics } = options;
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const onWatchError = (what: string, error: unknown, retryInMs: number) =>
    logger.warn('watch failed; restarting', { watch: what, retryInMs, error });
  const list = { group: GROUP, version: VERSION, plural: PLURAL['AWSCredentialsRequest']! };
  const requests = new Informer<AWSCredentialsRequest>({
    kubeConfig,
    path: resourcePath('AWSCredentialsRequest', watchNamespace),
    list: () =>
      (watchNamespace
        ? custom.listNamespacedCustomObject({ ...list, namespace: watchNamespace })
        : custom.listClusterCustomObject(list)) as Promise<{ items: AWSCredentialsRequest[] }>,
    transform: requestAsRead,
    bound: {
      perNamespace: context.perNamespace.credentialsRequests,
      park: parkedAsRead,
      parkedChanged: metrics.parkedObserver('AWSCredentialsRequest'),
      fetch: fetchByList<AWSCredentialsRequest>(custom, list),
    },
    resyncMs: options.syncPeriodMs,
    clock,
    onError: (error, retryInMs) => onWatchError('AWSCredentialsRequests', error, retryInMs),
  });
  manager.addSource(requests);
  /** Requests to look at again, asked by their collaborators: their Secrets, the cap. */
  const requeue = new Channel<Request>();
  const ofNamespace = (namespace: string) => requests.list(namespace).map(requestFor);
  const cap = new CredentialSetCap(options.maxCredentialSetsPerNamespace, (namespace, moved) => {
    for (const name of moved) requeue.send({ namespace, name });
    metrics.setRequestsOverCap(namespace, cap.refused(namespace));
  });
  const secrets = new RequestSecrets({
    kubeConfig,
    requests,
    clock,
    onSecret: (secret) =>
      requeue.send({ namespace: secret.metadata.namespace, name: secret.metadata.labels[REQUEST_LABEL] }),
    onAccess: (namespace) => ofNamespace(namespace).forEach((request) => requeue.send(request)),
    onWatchError,
  });
  manager.onStop(() => secrets.stop());
  // Kept before the controller hears of a change: a namespace's Secrets are watched from its first
  // request to its last, and the cap counts the credential sets of its requests.
  requests.addHandlers({
    add: (request) => {
      secrets.follow(request.metadata.namespace ?? '');
      cap.track(request);
    },
    update: (request, previous) => {
      if (!previous || requestChanged(request, previous)) cap.track(request);
    },
    delete: (request) => {
      secrets.follow(request.metadata.namespace ?? '');
      cap.untrack(request);
    },
  });
  const reconciler = new CredentialsReconciler({
    requests,
    secrets,
    resolver: context.resolver,
    cap,
    identity: (kind, name) => caches.identity(kind, name),
    writer: context.writer,
    secretWriter: new SecretWriter(kubeConfig),
    events: context.events,
    now: context.now,
    logger,
    namespaceLimit: {
      plural: 'AWSCredentialsRequests',
      limit: context.perNamespace.credentialsRequests,
      flag: 'max-credentials-requests-per-namespace',
    },
  });
  const all = () => requests.list().map(requestFor);
  const shards = options.shards?.count ?? 1;
  const builder = controllerFor(manager, 'awscredentialsrequest', requests)
    .withPredicate(requestChanged)
    .withWorkers(options.maxConcurrentReconciles)
    .shardedBy(({ namespace = '', name }) => shardOf(objectKey({ namespace, name }), shards))
    .watches(requeue, (request) => [request])
    // A role's externalID (or a source's keys) changed: requests reaching it take it now, as after an identity edit.
    .watches<V1Secret>(caches.secrets, (secret) =>
      caches.identitiesUsingSecret(secret.metadata?.name ?? '').length > 0 ? all() : [],
    )
    // Labels decide allowedNamespaces selectors.
    .watches<V1Namespace>(
      caches.namespaces,
      (namespace) => (namespace.metadata?.name ? ofNamespace(namespace.metadata.name) : []),
      labelsChanged,
    );
  // After an identity changed: every request (identities are few; a reconcile reads caches until it calls STS).
  for (const identities of Object.values(caches.identities))
    builder.watches<IdentityObject>(identities, all, specOrMetadataChanged);
  builder.complete(reconciler.reconcile);
  return { requests, secrets };
}
