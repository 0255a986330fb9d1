import { isDeepStrictEqual } from 'node:util';
import {
  CAPA_GROUP,
  type AWSAccountBinding,
  type AWSCluster,
  type AWSClusterLedger,
  type AWSTagPolicy,
} from '@keymaster/api';
import type { IdentityObject } from '@keymaster/identity';
import type { V1Namespace, V1Secret } from '@kubernetes/client-node';
import type { ControllerContext } from '../context.js';
import { describeKubeError } from '../kube/errors.js';
import { createdBefore, LEDGER_CRD, readLedgerEpoch } from '../kube/ledger-epoch.js';
import { LedgerStore } from '../kube/ledger-store.js';
import { controllerFor, requestFor } from '../runtime/builder.js';
import { keyOf, requestOf, type Request } from '../runtime/controller.js';
import { labelsChanged, specOrMetadataChanged } from '../runtime/predicates.js';
import { shardOf } from '../runtime/shard-assignment.js';
import { ClusterNames } from './cluster-names.js';
import { clusterNameOf } from './name-claim.js';
import { clustersOfPolicy } from './policy-watch.js';
import { AWSClusterReconciler } from './reconciler.js';
import { DEFAULT_TAG_WORK_PER_SLOT, DEFAULT_TAG_WORK_RUNNING, TagScheduler } from './tag-scheduler.js';
import type { TagOutcome } from './tags.js';

/**
 * The AWSCluster controller: each cluster's reconcile, and the changes elsewhere that concern clusters
 * (their ledgers' claims, the tag policy, account bindings, the identities, Secrets and namespaces
 * their chains reach). Tag work runs outside the reconciles; when it ends, the scheduler puts the
 * cluster back in this controller's queue, and that reconcile writes its status.
 */
export function setupAWSClusterController(context: ControllerContext): void {
  const { manager, caches, chains, options, clock } = context;
  const ledgers = new LedgerStore(caches.ledgers, context.writer);
  caches.ledgers.addHandlers({ delete: (ledger) => ledgers.deleted(ledger) });
  /** When the ledger CRD was created: clusters older than it may carry legacy bookkeeping tags. */
  let ledgerEpoch: Date | undefined;
  manager.onStart(async () => {
    ledgerEpoch = await readLedgerEpoch(options.kubeConfig).catch((error: unknown) => {
      // Fail-safe: no legacy tag is then trusted (Delete removes less; claims go by age, as after a rollback).
      options.logger.warn('ledger CRD not read: no legacy bookkeeping tag will be converted', {
        crd: LEDGER_CRD,
        error: describeKubeError(error),
        hint: `Grant the controller get on customresourcedefinitions ${LEDGER_CRD} (deploy/rbac), and restart it`,
      });
      return undefined;
    });
  });
  const tagWork = new TagScheduler<TagOutcome>({
    perSlot: options.tagWork?.perSlot ?? DEFAULT_TAG_WORK_PER_SLOT,
    maxRunning: options.tagWork?.maxRunning ?? DEFAULT_TAG_WORK_RUNNING,
    finished: (key) => clusters.queue.add(key),
    clock,
    observer: options.metrics.tagWorkObserver(),
  });
  const reconciler = new AWSClusterReconciler({
    caches,
    ledgers,
    legacyEligible: (cluster) => createdBefore(cluster, ledgerEpoch),
    writer: context.writer,
    events: context.events,
    resolver: context.resolver,
    syncTags: options.syncTags,
    clusterNames: new ClusterNames(),
    tagWork,
    sightings: context.sightings,
    enqueue: (key) => clusters.queue.add(key),
    autoControllerIdentity: options.autoControllerIdentity,
    metrics: options.metrics,
    now: context.now,
    logger: options.logger,
    tenantLabel: context.tenantLabel,
    namespaceLimit: {
      plural: 'AWSClusters',
      limit: context.perNamespace.clusters,
      flag: 'max-clusters-per-namespace',
    },
    adoption: context.adoption,
    syncPeriodMs: options.syncPeriodMs,
  });
  const cached = (requests: readonly Request[]) =>
    requests.map(({ namespace, name }) => caches.clusters.get(name, namespace)).filter((cluster) => !!cluster);
  // A cluster's shard follows its clusterName (immutable), so that the clusters of one name, rivals
  // for its claim, are in one process, which decides the claim (name-claim.ts). A cluster gone from
  // the cache is of no shard: its reconcile only forgets it, wherever it runs. A parked cluster (past
  // its namespace's bound) is reconciled only to say so, by its name's shard.
  const shards = options.shards?.count ?? 1;
  const shardOfCluster = ({ namespace = '', name }: Request) => {
    const cluster = caches.clusters.get(name, namespace) ?? caches.clusters.parked(name, namespace);
    return cluster && shardOf(clusterNameOf(cluster), shards);
  };
  const builder = controllerFor(manager, 'awscluster', caches.clusters)
    .withPredicate(specOrMetadataChanged)
    .withWorkers(options.maxConcurrentReconciles)
    .shardedBy(shardOfCluster)
    // Tag work runs outside the reconciles: dropped when its shard goes, waited for before its Lease goes.
    .withOutsideWork({
      cancel: (request) => tagWork.cancel(keyOf(request)),
      isRunning: (request) => tagWork.isRunning(keyOf(request)),
    })
    // A claim made or released (by the controller, ops, or the garbage collector with its cluster)
    // concerns the other clusters of the name; the ledger's own cluster reads it at its next sync.
    .watches<AWSClusterLedger>(caches.ledgers, otherClaimants(caches.clustersNamed.bind(caches)), claimsChanged)
    .watches<AWSTagPolicy>(caches.tagPolicies, clustersOfPolicy(caches), specOrMetadataChanged)
    // Who may act in an account: the clusters acting there decide again.
    .watches<AWSAccountBinding>(
      caches.accountBindings,
      (binding) =>
        caches.clusters
          .list()
          .filter((cluster) => cluster.status?.accountID === binding.metadata.name)
          .map(requestFor),
      specOrMetadataChanged,
    )
    // Secrets the clusters' chains reach; namespaces (allowedNamespaces and tag policies' namespaceSelectors).
    .watches<V1Namespace>(
      caches.namespaces,
      (namespace) => (namespace.metadata?.name ? caches.clusters.list(namespace.metadata.name).map(requestFor) : []),
      labelsChanged,
    );
  for (const secrets of [caches.secrets, caches.capaSecrets])
    if (secrets)
      builder.watches<V1Secret>(secrets, (secret) =>
        cached(chains.clustersReachingSecret(secret.metadata?.name ?? '')).map(requestFor),
      );
  // The clusters reaching an identity (Keymaster's or CAPA's): its edit may move them past it (a source replaced).
  const reachingIdentity = (apiGroup: string | undefined) => (identity: IdentityObject) =>
    cached(
      chains.clustersReaching({
        ...(apiGroup ? { apiGroup } : {}),
        kind: identity.kind,
        name: identity.metadata.name ?? '',
      }),
    ).map(requestFor);
  for (const identities of Object.values(caches.identities))
    builder.watches<IdentityObject>(identities, reachingIdentity(undefined), specOrMetadataChanged);
  for (const identities of Object.values(caches.capaIdentities))
    builder.watches<IdentityObject>(identities, reachingIdentity(CAPA_GROUP), specOrMetadataChanged);
  const clusters = builder.complete(reconciler.reconcile);
  // Running tag work ends before the Lease goes. What it wrote before the stop reached it gets its
  // status now: no tags are left written without their status (the rest the next leader redoes).
  manager.onStop(async () => {
    for (const key of await tagWork.stop())
      await clusters.reconcile(requestOf(key), { reconcileId: 'shutdown' }).catch((error: unknown) =>
        options.logger.warn('status after tag work not written at shutdown', {
          key,
          error: describeKubeError(error),
        }),
      );
  });
}

const claimsChanged = (ledger: AWSClusterLedger, previous: AWSClusterLedger) =>
  !isDeepStrictEqual(ledger.spec.claims, previous.spec.claims);

/** The other clusters of the names a ledger claims, or claimed before. */
const otherClaimants =
  (clustersNamed: (clusterName: string) => AWSCluster[]) =>
  (ledger: AWSClusterLedger, previous?: AWSClusterLedger): Request[] => {
    const own = keyOf(requestFor(ledger));
    const names = new Set(
      [...(ledger.spec.claims ?? []), ...(previous?.spec.claims ?? [])].map(({ clusterName }) => clusterName),
    );
    return [...names]
      .flatMap((name) => clustersNamed(name))
      .map(requestFor)
      .filter((request) => keyOf(request) !== own);
  };
