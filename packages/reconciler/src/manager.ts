import { isDeepStrictEqual } from 'node:util';
import type { KubeConfig } from '@kubernetes/client-node';
import { IDENTITY_KINDS, type AWSCluster, type AWSClusterLedger, type IdentityReference } from '@keymaster/api';
import {
  chainReach,
  IdentityResolver,
  kubeServiceAccountTokens,
  SOURCE_DESCRIPTIONS,
  checkControllerCredentials,
  defaultControllerCredentials,
  type ControllerCredentialsCheck,
  type IdentityObject,
  type StsRate,
} from '@keymaster/identity';
import type { AwsCredentialIdentityProvider } from '@smithy/types';
import { AWSClusterReconciler } from './awscluster/reconciler.js';
import { clusterNameOf } from './awscluster/name-claim.js';
import { DEFAULT_TAG_WORK_PER_SLOT, DEFAULT_TAG_WORK_RUNNING, TagScheduler } from './awscluster/tag-scheduler.js';
import type { SyncTags, TagOutcome } from './awscluster/tags.js';
import { ClusterNames } from './awscluster/cluster-names.js';
import { IdentitySightings } from './awscluster/identity-sightings.js';
import { ChainIndex } from './identity/chain-index.js';
import { DeletingIdentities } from './identity/deletions.js';
import { CredentialRequests } from './credentials/controller.js';
import { IdentityReconciler } from './identity/reconciler.js';
import { CLAIMED_ACCOUNT } from './identity/legacy-account-claim.js';
import { SecretUsers } from './identity/secret-users.js';
import { DEFAULT_TENANT_LABEL } from './webhooks/tenancy.js';
import { Caches } from './kube/caches.js';
import { kubeAccessError } from './kube/access-error.js';
import { describeKubeError, isStaleRead } from './kube/errors.js';
import { EventRecorder } from './kube/events.js';
import { createdBefore, LEDGER_CRD, readLedgerEpoch } from './kube/ledger-epoch.js';
import { LedgerStore } from './kube/ledger-store.js';
import { KubeWriter } from './kube/writer.js';
import type { Logger } from './logging.js';
import type { KeymasterMetrics } from './metrics.js';
import { realClock, type Clock } from './runtime/clock.js';
import { Controller, keyOf, requestOf, type Reconciler, type Request } from './runtime/controller.js';
import { LeaderElector } from './runtime/leader-election.js';
import { shardOf } from './runtime/shard-assignment.js';
import { ShardOwner } from './runtime/shards.js';
import { DEFAULT_PER_NAMESPACE, type PerNamespaceLimits } from './cli/flags.js';
import { objectKey } from './runtime/object-key.js';

export interface ManagerOptions {
  kubeConfig: KubeConfig;
  /** --tenant-label: on identities, whose tenant an identity is: it acts only in accounts bound to it (default keymaster.dev/tenant). */
  tenantLabel?: string;
  controllerNamespace: string;
  watchNamespace?: string;
  watchFilter?: string;
  syncPeriodMs: number;
  maxConcurrentReconciles: number;
  /** Objects served per namespace, the oldest first (default DEFAULT_PER_NAMESPACE); the rest are parked. */
  perNamespace?: PerNamespaceLimits;
  autoControllerIdentity: boolean;
  leaderElection?: {
    namespace: string;
    name: string;
    identity: string;
    leaseDurationMs?: number;
    renewDeadlineMs?: number;
    retryPeriodMs?: number;
  };
  /** --shards: this replica reconciles the clusters of the shards whose Lease it holds (docs/reconciler.md#shards). */
  shards?: {
    count: number;
    namespace: string;
    prefix: string;
    identity: string;
    leaseDurationMs?: number;
    renewDeadlineMs?: number;
    retryPeriodMs?: number;
  };
  /** AWS endpoint and STS region for every session; the controller's credentials (default: the SDK's chain). */
  aws: { endpoint?: string; stsRegion: string };
  controllerCredentials?: AwsCredentialIdentityProvider;
  syncTags: SyncTags;
  /** --max-credential-sets-per-namespace: distinct credential sets one namespace's AWSCredentialsRequests may use. */
  maxCredentialSetsPerNamespace: number;
  /** --sts-rate-per-namespace: STS calls each namespace may make; absent, no bound. */
  stsRatePerNamespace?: StsRate;
  /** --min-renewal-interval: no request's credentials renewed sooner after they were obtained (default 5 minutes). */
  minRenewalIntervalMs?: number;
  /** Tag work running at once per AWS account and region, and in all (default 20 and 500). */
  tagWork?: { perSlot?: number; maxRunning?: number };
  metrics: KeymasterMetrics;
  logger: Logger;
  clock?: Clock;
  /** Called when leadership is lost: the process must stop, as controller-runtime's does. */
  onLeadershipLost?: () => void;
}

/** What a controller refused a list at start needs. */
const CONTROLLER_RBAC =
  "keymaster run needs the rights of deploy/rbac (or the Helm chart's): run it as the ServiceAccount they bind, or bind them to the user it runs as";

type Meta = {
  metadata?: {
    generation?: number;
    labels?: unknown;
    annotations?: unknown;
    finalizers?: unknown;
    deletionTimestamp?: unknown;
  };
};

/** Only changes a reconcile acts on: spec (generation), labels, annotations, finalizers, deletion. Not our own status writes. */
function worthReconciling(object: Meta, previous: Meta | undefined): boolean {
  if (!previous) return true;
  const a = object.metadata ?? {};
  const b = previous.metadata ?? {};
  return (
    a.generation !== b.generation ||
    !isDeepStrictEqual(a.labels, b.labels) ||
    !isDeepStrictEqual(a.annotations, b.annotations) ||
    !isDeepStrictEqual(a.finalizers, b.finalizers) ||
    a.deletionTimestamp !== b.deletionTimestamp
  );
}

/**
 * The controller process's parts, wired: informer caches, the AWSCluster controller and one
 * controller per identity kind, the handlers that turn changes into exactly the keys they affect,
 * and leader election. Reconciling starts once the caches are synced (and this replica leads).
 */
export class Manager {
  readonly caches: Caches;
  readonly resolver: IdentityResolver;
  readonly writer: KubeWriter;
  readonly clusters: Controller;
  readonly identities: Record<string, Controller>;
  readonly credentialRequests: CredentialRequests;
  /** Which clusters' chains reach each identity and Secret: an event costs the clusters it affects. */
  readonly chains: ChainIndex;
  readonly #secretUsers = new SecretUsers();
  readonly #options: ManagerOptions;
  readonly #elector: LeaderElector | undefined;
  readonly #shards: ShardOwner | undefined;
  readonly #controllerCredentials: AwsCredentialIdentityProvider;
  /** Tag work, a queue per AWS account and region: its end enqueues the cluster, whose reconcile writes status. */
  readonly #tagWork: TagScheduler<TagOutcome>;
  readonly #reconcileCluster: Reconciler;
  /** The clusters' ledgers, read through the caches and what this process wrote. */
  readonly #ledgers: LedgerStore;
  /** When the ledger CRD was created: clusters older than it may carry legacy bookkeeping tags. */
  #ledgerEpoch: Date | undefined;
  #credentialsCheck: ControllerCredentialsCheck | undefined;
  #credentialsChecked: Promise<void> | undefined;
  #started = false;
  /** Set while start() waits for the caches: a list RBAC refuses then ends the start (it would never sync). */
  #refuseStart: ((error: Error) => void) | undefined;

  constructor(options: ManagerOptions) {
    this.#options = options;
    const { kubeConfig, controllerNamespace, metrics, logger } = options;
    this.#controllerCredentials = options.controllerCredentials ?? defaultControllerCredentials();
    const clock = options.clock ?? realClock;
    const log = (what: string) => (error: unknown) => logger.error(what, { error });
    this.writer = new KubeWriter(kubeConfig);
    const events = new EventRecorder(kubeConfig, 'keymaster', () => new Date(clock.now()), log('event not recorded'));
    const sightings = new IdentitySightings(({ kind, name }) => this.identities[kind]?.enqueue({ name }));
    this.#shards = options.shards && this.#shardOwner(options.shards, clock);
    const shards = options.shards?.count ?? 1;
    // A cluster's shard follows its clusterName (immutable), so that the clusters of one name, rivals
    // for its claim, are in one process, which decides the claim (awscluster/name-claim.ts). A cluster
    // gone from the cache is of no shard: its reconcile only forgets it, wherever it runs.
    // A parked cluster (past its namespace's bound) is reconciled only to say so, by its name's shard.
    const shardOfCluster = ({ namespace = '', name }: Request) => {
      const cluster = this.caches.clusters.get(name, namespace) ?? this.caches.clusters.parked(name, namespace);
      return cluster && shardOf(clusterNameOf(cluster), shards);
    };
    const shardOfRequest = ({ namespace = '', name }: Request) => shardOf(objectKey({ namespace, name }), shards);
    // Cluster-scoped work (identities, and what their reconciles write) is shard 0's holder's.
    const identityShard = () => 0;
    const deletions = new DeletingIdentities();
    this.chains = new ChainIndex((cluster) =>
      chainReach(this.caches.identityStore(), {
        namespace: cluster.metadata.namespace ?? '',
        identityRef: cluster.spec.identityRef,
        controllerNamespace,
      }),
    );

    this.caches = new Caches(
      {
        kubeConfig,
        controllerNamespace,
        ...(options.watchNamespace ? { watchNamespace: options.watchNamespace } : {}),
        ...(options.watchFilter ? { watchFilter: options.watchFilter } : {}),
        resyncMs: options.syncPeriodMs,
        clustersPerNamespace: (options.perNamespace ?? DEFAULT_PER_NAMESPACE).clusters,
        clustersParked: metrics.parkedObserver('AWSCluster'),
        clock,
        onError: (what, error, retryInMs) => {
          const refused = kubeAccessError(error, `list and watch ${what}`, undefined, CONTROLLER_RBAC);
          if (refused?.forbidden) this.#refuseStart?.(refused);
          logger.warn('watch failed; restarting', { watch: what, retryInMs, error: refused?.message ?? error });
        },
      },
      {
        clusters: {
          add: (cluster) => this.#clusterChanged(cluster),
          update: (cluster, previous) => {
            if (worthReconciling(cluster, previous)) this.#clusterChanged(cluster);
          },
          delete: (cluster) => {
            this.clusters.enqueue(request(cluster));
            this.#enqueueIdentities(this.chains.remove(cluster));
          },
          resync: (cluster) => this.clusters.enqueue(request(cluster)),
          parked: (cluster) => this.clusters.enqueue(request(cluster)),
        },
        // A claim made or released (by the controller, ops, or the garbage collector with its cluster)
        // concerns the other clusters of the name; the ledger's own cluster reads it at its next sync.
        ledgers: {
          add: (ledger) => this.#claimsChanged(ledger),
          update: (ledger, previous) => {
            if (!isDeepStrictEqual(ledger.spec.claims, previous?.spec.claims)) this.#claimsChanged(ledger, previous);
          },
          delete: (ledger) => {
            this.#ledgers.deleted(ledger);
            this.#claimsChanged(ledger);
          },
        },
        identities: {
          add: (identity) => this.#identityChanged(identity),
          update: (identity, previous) => {
            if (worthReconciling(identity, previous)) this.#identityChanged(identity);
          },
          delete: (identity) => this.#identityChanged(identity, true),
          resync: (identity) => this.identities[identity.kind]?.enqueue({ name: identity.metadata.name ?? '' }),
        },
        tagPolicies: {
          add: () => this.#enqueueAllClusters(),
          update: (policy, previous) => {
            if (worthReconciling(policy, previous)) this.#enqueueAllClusters();
          },
          delete: () => this.#enqueueAllClusters(),
        },
        // Who may act in an account: the clusters acting there decide again, and claims of it are converted.
        accountBindings: {
          add: (binding) => this.#accountBindingChanged(binding.metadata.name ?? ''),
          update: (binding, previous) => {
            if (worthReconciling(binding, previous)) this.#accountBindingChanged(binding.metadata.name ?? '');
          },
          delete: (binding) => this.#accountBindingChanged(binding.metadata.name ?? ''),
        },
        secrets: {
          add: (secret) => this.#secretChanged(secret.metadata?.name ?? ''),
          update: (secret) => this.#secretChanged(secret.metadata?.name ?? ''),
          delete: (secret) => this.#secretChanged(secret.metadata?.name ?? ''),
        },
        // Labels decide allowedNamespaces selectors, so where the namespace's chains stop.
        namespaces: {
          add: (namespace) => this.#namespaceChanged(namespace.metadata?.name ?? ''),
          update: (namespace, previous) => {
            if (isDeepStrictEqual(namespace.metadata?.labels, previous?.metadata?.labels)) return;
            this.#namespaceChanged(namespace.metadata?.name ?? '');
          },
          delete: (namespace) => this.#namespaceChanged(namespace.metadata?.name ?? ''),
        },
      },
    );

    this.#ledgers = new LedgerStore(this.caches.ledgers, this.writer);
    // Resolves read the informer caches: checking a chain costs no API call.
    this.resolver = new IdentityResolver({
      store: this.caches.identityStore(),
      controllerNamespace,
      aws: options.aws,
      controllerCredentials: this.#controllerCredentials,
      // Web identities' tokens: the one write the controller makes to ServiceAccounts (serviceaccounts/token).
      serviceAccountTokens: kubeServiceAccountTokens(kubeConfig),
      usersAtDeletion: deletions.usersOf,
      ...(options.stsRatePerNamespace ? { stsRate: options.stsRatePerNamespace } : {}),
      ...(options.minRenewalIntervalMs === undefined ? {} : { minRenewalIntervalMs: options.minRenewalIntervalMs }),
      observer: metrics.resolverObserver(),
      clock: () => clock.now(),
    });
    const controllerOptions = {
      clock,
      metrics: metrics.runtime,
      isExpected: isStaleRead,
      onError: (key: { name: string; namespace?: string }, error: unknown) => {
        // A conflict or a 404 only means the cache was behind: the retry reads the newer object (or none).
        if (isStaleRead(error))
          logger.debug('stale read; retrying', { key: keyOf(key), error: describeKubeError(error) });
        else logger.error('reconcile failed', { key: keyOf(key), error: describeKubeError(error) });
      },
    };
    this.#tagWork = new TagScheduler<TagOutcome>({
      perSlot: options.tagWork?.perSlot ?? DEFAULT_TAG_WORK_PER_SLOT,
      maxRunning: options.tagWork?.maxRunning ?? DEFAULT_TAG_WORK_RUNNING,
      finished: (key) => this.clusters.queue.add(key),
      clock,
      observer: metrics.tagWorkObserver(),
    });
    const clusterReconciler = new AWSClusterReconciler({
      caches: this.caches,
      ledgers: this.#ledgers,
      legacyEligible: (cluster) => createdBefore(cluster, this.#ledgerEpoch),
      writer: this.writer,
      events,
      resolver: this.resolver,
      syncTags: options.syncTags,
      clusterNames: new ClusterNames(),
      tagWork: this.#tagWork,
      sightings,
      enqueue: (key) => this.clusters.queue.add(key),
      autoControllerIdentity: options.autoControllerIdentity,
      metrics,
      now: () => new Date(clock.now()),
      logger,
      tenantLabel: options.tenantLabel ?? DEFAULT_TENANT_LABEL,
      namespaceLimit: {
        plural: 'AWSClusters',
        limit: (options.perNamespace ?? DEFAULT_PER_NAMESPACE).clusters,
        flag: 'max-clusters-per-namespace',
      },
    });
    this.#reconcileCluster =
      this.#shards?.guard(clusterReconciler.reconcile, shardOfCluster) ?? clusterReconciler.reconcile;
    this.clusters = new Controller({
      name: 'awscluster',
      workers: options.maxConcurrentReconciles,
      reconcile: this.#reconcileCluster,
      ...controllerOptions,
      ...(this.#shards ? { owns: (key: Request) => this.#shards!.owns(shardOfCluster(key)) } : {}),
    });
    this.identities = Object.fromEntries(
      IDENTITY_KINDS.map((kind) => {
        const reconciler = new IdentityReconciler(kind, {
          caches: this.caches,
          chains: this.chains,
          writer: this.writer,
          events,
          sightings,
          deletions,
          controllerNamespace,
          controllerCredentials: () => this.#credentialsCheck,
          now: () => new Date(clock.now()),
          logger,
          tenantLabel: options.tenantLabel ?? DEFAULT_TENANT_LABEL,
        });
        return [
          kind,
          new Controller({
            name: kind.toLowerCase(),
            workers: 1,
            reconcile: this.#shards?.guard(reconciler.reconcile, identityShard) ?? reconciler.reconcile,
            ...controllerOptions,
            ...(this.#shards ? { owns: () => this.#shards!.owns(identityShard()) } : {}),
          }),
        ];
      }),
    );
    this.credentialRequests = new CredentialRequests({
      kubeConfig,
      ...(options.watchNamespace ? { watchNamespace: options.watchNamespace } : {}),
      resyncMs: options.syncPeriodMs,
      perNamespace: (options.perNamespace ?? DEFAULT_PER_NAMESPACE).credentialsRequests,
      requestsParked: metrics.parkedObserver('AWSCredentialsRequest'),
      clock,
      resolver: this.resolver,
      maxCredentialSetsPerNamespace: options.maxCredentialSetsPerNamespace,
      refusedByCap: (namespace, refused) => metrics.setRequestsOverCap(namespace, refused),
      identity: (kind, name) => this.caches.identity(kind, name),
      writer: this.writer,
      events,
      logger,
      onWatchError: (what, error, retryInMs) =>
        logger.warn('watch failed; restarting', { watch: what, retryInMs, error }),
      // Sharded by namespace/name (a shard taken enqueues its requests).
      ...(this.#shards ? { guard: (reconcile) => this.#shards!.guard(reconcile, shardOfRequest) } : {}),
      controller: {
        ...controllerOptions,
        workers: options.maxConcurrentReconciles,
        ...(this.#shards ? { owns: (key: Request) => this.#shards!.owns(shardOfRequest(key)) } : {}),
      },
    });
    this.#elector = options.leaderElection && new LeaderElector({ kubeConfig, ...options.leaderElection, clock });
  }

  /** Ready once every cache is synced: reconciles then see the whole world. */
  get ready(): boolean {
    return this.caches.synced && this.credentialRequests.synced;
  }

  async start(): Promise<void> {
    this.#credentialsChecked = this.#checkControllerCredentials();
    this.#ledgerEpoch = await readLedgerEpoch(this.#options.kubeConfig).catch((error: unknown) => {
      // Fail-safe: no legacy tag is then trusted (Delete removes less; claims go by age, as after a rollback).
      this.#options.logger.warn('ledger CRD not read: no legacy bookkeeping tag will be converted', {
        crd: LEDGER_CRD,
        error: describeKubeError(error),
        hint: `Grant the controller get on customresourcedefinitions ${LEDGER_CRD} (deploy/rbac), and restart it`,
      });
      return undefined;
    });
    const refused = new Promise<never>((_, reject) => (this.#refuseStart = reject));
    try {
      await Promise.race([this.caches.start().then(() => this.caches.waitForSync()), refused]);
    } catch (error) {
      await this.caches.stop();
      throw error;
    } finally {
      this.#refuseStart = undefined;
    }
    await this.credentialRequests.start();
    const begin = () => {
      this.#started = true;
      this.clusters.start();
      for (const controller of Object.values(this.identities)) controller.start();
      this.credentialRequests.controller.start();
      this.#options.logger.info('reconciling', { clusters: this.caches.clusters.list().length });
    };
    if (!this.#elector) {
      begin();
      this.#shards?.start();
      return;
    }
    this.#leading(false);
    this.#options.logger.info('waiting for leadership', { lease: this.#options.leaderElection });
    await this.#elector.run(
      () => {
        this.#leading(true);
        this.#options.logger.info('became leader', { lease: this.#options.leaderElection });
        begin();
      },
      () => {
        this.#leading(false);
        this.#options.logger.error('leadership lost');
        this.#options.onLeadershipLost?.();
      },
    );
  }

  /** Stops taking work, finishes what is in hand, releases the lease and stops the informers. */
  async stop(): Promise<void> {
    if (this.#started)
      await Promise.all([
        this.clusters.stop(),
        ...Object.values(this.identities).map((controller) => controller.stop()),
        this.credentialRequests.controller.stop(),
      ]);
    // Running tag work ends before the lease goes. What it wrote before the stop reached it gets its
    // status now: no tags are left written without their status (the rest the next leader redoes).
    for (const key of await this.#tagWork.stop()) {
      await this.#reconcileCluster(requestOf(key), { reconcileId: 'shutdown' }).catch((error: unknown) =>
        this.#options.logger.warn('status after tag work not written at shutdown', {
          key,
          error: describeKubeError(error),
        }),
      );
    }
    await this.#shards?.stop();
    await this.#elector?.release();
    if (this.#elector) this.#leading(false);
    await this.caches.stop();
    await this.credentialRequests.stop();
    await this.#credentialsChecked;
    this.resolver.clear();
  }

  /**
   * Which source of the SDK's default chain gives the controller its own credentials, or none: logged,
   * exported (keymaster_controller_credentials) and shown on AWSClusterControllerIdentity/default.
   */
  async #checkControllerCredentials(): Promise<void> {
    const { logger, metrics } = this.#options;
    const check = await checkControllerCredentials(this.#controllerCredentials, !this.#options.controllerCredentials);
    this.#credentialsCheck = check;
    metrics.setControllerCredentials(check.source);
    if (check.source === 'none')
      logger.warn('controller credentials: none found', {
        source: check.source,
        error: check.error,
        hint: "Clusters whose identity chain starts from AWSClusterControllerIdentity/default fail until the controller's pod has credentials: IRSA, EKS Pod Identity, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY",
      });
    else logger.info('controller credentials', { source: check.source, from: SOURCE_DESCRIPTIONS[check.source] });
    this.identities['AWSClusterControllerIdentity']?.enqueue({ name: 'default' });
  }

  /** Takes shard Leases; a shard taken enqueues its clusters (and for shard 0, every identity). */
  #shardOwner(shards: NonNullable<ManagerOptions['shards']>, clock: Clock): ShardOwner {
    const { kubeConfig, logger, metrics } = this.#options;
    const clustersOf = (shard: number) =>
      this.caches.clusters.list().filter((cluster) => shardOf(clusterNameOf(cluster), shards.count) === shard);
    const requestsOf = (shard: number) =>
      this.credentialRequests.requests
        .list()
        .filter((object) => shardOf(keyOf(request(object)), shards.count) === shard);
    return new ShardOwner({
      kubeConfig,
      ...shards,
      shards: shards.count,
      clock,
      observer: metrics.shardObserver(),
      log: (level, message, fields) => logger[level](message, fields),
      // Tag work runs outside the reconciles: dropped when its shard goes, waited for before its Lease goes.
      onGivenUp: (shard) => {
        for (const cluster of clustersOf(shard)) this.#tagWork.cancel(keyOf(request(cluster)));
      },
      busy: (shard) => clustersOf(shard).some((cluster) => this.#tagWork.isRunning(keyOf(request(cluster)))),
      onAcquired: (shard) => {
        for (const cluster of clustersOf(shard)) this.clusters.enqueue(request(cluster));
        // Requests too: their renewals were queued in the replica that held the shard before.
        for (const credentialsRequest of requestsOf(shard))
          this.credentialRequests.controller.enqueue(request(credentialsRequest));
        if (shard === 0)
          for (const kind of IDENTITY_KINDS)
            for (const identity of this.caches.identities[kind].list())
              this.identities[kind]?.enqueue({ name: identity.metadata.name ?? '' });
      },
    });
  }

  /** leader_election_master_status: whether this replica reconciles, for the "no leader" alert. */
  #leading(leading: boolean): void {
    const name = this.#options.leaderElection?.name ?? '';
    this.#options.metrics.runtime.leaderElectionMasterStatus.set({ name }, leading ? 1 : 0);
  }

  #clusterChanged(cluster: AWSCluster): void {
    // Its chain is walked again: the identities it reached before or reaches now count their users.
    this.#reindex([cluster]);
  }

  /** Enqueues the other clusters of the names a ledger claims, or claimed before. */
  #claimsChanged(ledger: AWSClusterLedger, previous?: AWSClusterLedger): void {
    const own = objectKey(ledger.metadata);
    const names = new Set(
      [...(ledger.spec.claims ?? []), ...(previous?.spec.claims ?? [])].map(({ clusterName }) => clusterName),
    );
    for (const name of names)
      for (const cluster of this.caches.clustersNamed(name))
        if (keyOf(request(cluster)) !== own) this.clusters.enqueue(request(cluster));
  }

  #identityChanged(identity: IdentityObject, deleted = false): void {
    this.credentialRequests.enqueueAll();
    const name = identity.metadata.name ?? '';
    if (deleted) this.#secretUsers.remove(identity);
    else this.#secretUsers.set(identity);
    this.identities[identity.kind]?.enqueue({ name });
    // The clusters reaching it, walked again: its edit may move them past it (a source replaced).
    this.#reindex(this.#cached(this.chains.clustersReaching({ kind: identity.kind, name })));
  }

  #secretChanged(name: string): void {
    const identities = this.#secretUsers.identitiesUsing(name);
    // A role's externalID (or a source's keys) changed: requests reaching it take it now, as after an identity edit.
    if (identities.length > 0) this.credentialRequests.enqueueAll();
    this.#enqueueIdentities(identities);
    this.#reindex(this.#cached(this.chains.clustersReachingSecret(name)));
  }

  #accountBindingChanged(accountId: string): void {
    for (const cluster of this.caches.clusters.list())
      if (cluster.status?.accountID === accountId) this.clusters.enqueue(request(cluster));
    for (const kind of IDENTITY_KINDS)
      for (const identity of this.caches.identities[kind].list())
        if (identity.metadata.annotations?.[CLAIMED_ACCOUNT] === accountId)
          this.identities[kind]?.enqueue({ name: identity.metadata.name ?? '' });
  }

  #namespaceChanged(name: string): void {
    if (name) this.credentialRequests.enqueueNamespace(name);
    if (name) this.#reindex(this.caches.clusters.list(name));
  }

  /** Enqueues the clusters and walks their chains again, then enqueues the identities whose users may have changed. */
  #reindex(clusters: readonly AWSCluster[]): void {
    for (const cluster of clusters) {
      this.clusters.enqueue(request(cluster));
      void this.chains.index(cluster).then((identities) => this.#enqueueIdentities(identities));
    }
  }

  /** The cached clusters of an index entry. */
  #cached(requests: readonly Request[]): AWSCluster[] {
    return requests
      .map(({ namespace, name }) => this.caches.clusters.get(name, namespace))
      .filter((cluster) => cluster !== undefined);
  }

  #enqueueIdentities(identities: readonly IdentityReference[]): void {
    for (const { kind, name } of identities) this.identities[kind]?.enqueue({ name });
  }

  #enqueueAllClusters(): void {
    for (const cluster of this.caches.clusters.list()) this.clusters.enqueue(request(cluster));
  }
}

type Named = { metadata: { namespace?: string; name?: string } };

const request = (object: Named) => ({
  namespace: object.metadata.namespace ?? '',
  name: object.metadata.name ?? '',
});
