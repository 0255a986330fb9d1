import { isDeepStrictEqual } from 'node:util';
import {
  API_VERSION,
  EventReason,
  PAUSED_ANNOTATION,
  PrincipalCredentialRetrievedReason,
  SINGLETON_NAME,
  TagsInSyncReason,
  type AWSAccountBinding,
  type AWSCluster,
  type AWSClusterStatus,
  type AWSTagPolicy,
  type Condition,
  type ConditionUpdate,
  type IdentityKind,
} from '@keymaster/api';
import {
  CONTROLLER_IDENTITY,
  IdentityNotFoundError,
  StsRateLimitedError,
  type IdentityObject,
  type IdentityResolver,
  type IdentitySession,
} from '@keymaster/identity';
import type { V1Namespace } from '@kubernetes/client-node';
import type { LedgerClaims } from '../kube/ledger-claims.js';
import type { LedgerStore } from '../kube/ledger-store.js';
import type { EventRecorder } from '../kube/events.js';
import { reconcileParked, type NamespaceLimit, type ParkedWriter } from '../kube/parked.js';
import { holds, withFinalizer, withoutFinalizer, type Finalizer } from '../kube/finalizers.js';
import type { KubeWriter } from '../kube/writer.js';
import type { Logger } from '../logging.js';
import type { KeymasterMetrics } from '../metrics.js';
import type { ReconcileContext, Request, Result } from '../runtime/controller.js';
import type { Informer } from '../runtime/informer.js';
import { accountVerdict, boundTenants, type AccountRefusal } from './account-binding.js';
import { ClusterLedger } from './cluster-ledger.js';
import type { Claimant, ClusterNames } from './cluster-names.js';
import { newFailures, readyCondition, setCondition } from './conditions.js';
import { clusterUser } from '../awsclusteridentity/deletions.js';
import { IDENTITY_OK, identityVerdict, usageAllowed } from './identity-conditions.js';
import { clusterNameOf, nameClaim, nameCondition, regionsOf, type NameClaim } from './name-claim.js';
import type { IdentitySightings } from './identity-sightings.js';
import type { TagScheduler } from './tag-scheduler.js';
import { clusterLayerInputs } from './tag-input.js';
import { KnownResources } from './known-resources.js';
import { tagTicket, tagTicketParts } from './tag-ticket.js';
import { claimedOutcome, type SyncTags, type TagOutcome, type TagWorkOptions } from './tags.js';
import { objectKey } from '../runtime/object-key.js';
import { adoptedFrom, isClusterPaused, type AdoptionLookup } from '../adoption/index.js';

export const CLUSTER_FINALIZER: Finalizer = {
  name: 'infrastructure.keymaster.dev/awscluster',
  formerNames: ['awscluster.infrastructure.keymaster.dev'],
};

/** What the AWSCluster reconcile reads of the informer caches (`Caches` is one). */
export interface AWSClusterCaches {
  clusters: Pick<Informer<AWSCluster>, 'get' | 'parked'>;
  clustersNamed(clusterName: string): AWSCluster[];
  ledgerClaims: Pick<LedgerClaims, 'claiming'>;
  identity(kind: IdentityKind, name: string): IdentityObject | undefined;
  allIdentities(): IdentityObject[];
  accountBindings: Pick<Informer<AWSAccountBinding>, 'get'>;
  tagPolicies: Pick<Informer<AWSTagPolicy>, 'list'>;
  /** Namespaces' labels: what selected tag policies' namespaceSelectors match. */
  namespaces: Pick<Informer<V1Namespace>, 'get'>;
}

/**
 * What the AWSCluster reconcile calls, each as narrow as its use: the controller passes the concrete
 * classes, unit tests the fakes of test/support.
 */
export interface AWSClusterReconcilerDeps {
  caches: AWSClusterCaches;
  /** The clusters' ledgers: what Keymaster remembers of each (claims, removal memory). */
  ledgers: Pick<LedgerStore, 'get' | 'write'>;
  /** Whether a cluster may carry bookkeeping tags of releases up to 0.2.0 (created before the ledger CRD). */
  legacyEligible: (cluster: AWSCluster) => boolean;
  writer: ParkedWriter & Pick<KubeWriter, 'createClusterScoped'>;
  events: Pick<EventRecorder, 'record'>;
  resolver: Pick<IdentityResolver, 'resolve' | 'release'>;
  syncTags: SyncTags;
  clusterNames: ClusterNames;
  /** Runs the tag step outside the workers, a queue per account and region; `finished` enqueues the cluster. */
  tagWork: Pick<TagScheduler<TagOutcome>, 'cancel' | 'take' | 'submit'>;
  sightings: Pick<IdentitySightings, 'saw'>;
  /** Enqueues another AWSCluster (namespace/name): a duplicate clusterName concerns both. */
  enqueue: (key: string) => void;
  autoControllerIdentity: boolean;
  metrics: Pick<KeymasterMetrics, 'setDrifted' | 'countIgnoredBookkeeping' | 'countLedgerFull'>;
  now: () => Date;
  logger: Logger;
  /** The namespace label naming a tenant, also on identities: an identity of a tenant acts only in accounts bound to it. */
  tenantLabel: string;
  /** How many AWSClusters a namespace is served (`Caches`' bound): what a parked cluster is told. */
  namespaceLimit: NamespaceLimit;
  /** With --adopt-cluster-api: the Cluster API Clusters whose companions' spec.clusterAPI is trusted. */
  adoption?: AdoptionLookup | undefined;
  /** --sync-period: a cluster discovers its resources at least this often, however often its layers are edited. */
  syncPeriodMs?: number;
}

/** The reconcile of one AWSCluster: identity, tags, status, events. */
export class AWSClusterReconciler {
  /** The keymaster.dev/ keys last reported ignored, per cluster: reported once per key set and controller run. */
  readonly #reportedIgnored = new Map<string, string>();
  /** What each cluster's last synced tag work left: a layer edit plans from it, without discovery. */
  readonly #known: KnownResources;

  constructor(private readonly deps: AWSClusterReconcilerDeps) {
    this.#known = new KnownResources({ maxAgeMs: deps.syncPeriodMs });
  }

  readonly reconcile = async (request: Request, context: ReconcileContext): Promise<Result | undefined> => {
    const { caches, logger } = this.deps;
    const key = objectKey(request);
    const cluster = caches.clusters.get(request.name, request.namespace);
    const log = logger.child({ cluster: request.name, namespace: request.namespace, reconcileID: context.reconcileId });
    if (!cluster) {
      this.#forget(key);
      const parked = caches.clusters.parked(request.name, request.namespace ?? '');
      if (parked)
        await reconcileParked(parked, CLUSTER_FINALIZER, this.deps.namespaceLimit, this.deps.writer, this.deps.now());
      return undefined;
    }
    if (cluster.metadata.deletionTimestamp) return this.#delete(cluster, key, log);
    // A companion's Cluster paused counts at once: the annotation the adoption copies may come after
    // clusterctl move has begun deleting the source's objects.
    const followed = adoptedFrom(cluster, this.deps.adoption);
    if (cluster.metadata.annotations?.[PAUSED_ANNOTATION] !== undefined || (followed && isClusterPaused(followed))) {
      this.deps.tagWork.cancel(key);
      log.debug('paused', { annotation: PAUSED_ANNOTATION });
      return undefined;
    }
    const finalizers = withFinalizer(cluster.metadata.finalizers ?? [], CLUSTER_FINALIZER);
    if (finalizers) {
      // The update this causes brings the cluster back through the informer.
      await this.deps.writer.setFinalizers(cluster, finalizers);
      return undefined;
    }
    return this.#reconcile(cluster, key, log, context.queuedAt ?? this.deps.now().getTime());
  };

  /** `queuedAt`: when the request was queued; AWS as it was then is the least the tag work must see. */
  async #reconcile(cluster: AWSCluster, key: string, log: Logger, queuedAt: number): Promise<Result | undefined> {
    const { resolver, sightings, now } = this.deps;
    // A shallow copy: the reconcile replaces status's fields, never changes them in place.
    const status: AWSClusterStatus = { ...cluster.status };
    const generation = cluster.metadata.generation ?? 0;
    const time = now().toISOString();
    let conditions: Condition[] = status.conditions ?? [];
    const set = (update: ConditionUpdate) => (conditions = setCondition(conditions, update, generation, time));
    const identityRef = cluster.spec.identityRef ?? CONTROLLER_IDENTITY;
    const events: TagOutcome['events'] = [];
    let transient = false;

    let session: IdentitySession | undefined;
    try {
      session = await resolver.resolve({
        namespace: cluster.metadata.namespace ?? '',
        identityRef,
        region: cluster.spec.region,
        cluster: clusterUser(cluster),
        holder: holderOf(key),
      });
    } catch (error) {
      // The namespace's STS budget: back when it allows, status as it is (nothing new is known).
      if (error instanceof StsRateLimitedError) {
        log.debug('waiting for the namespace STS budget', { retryAfterMs: error.retryAfterMs });
        return { requeueAfterMs: error.retryAfterMs };
      }
      if (await this.#createControllerIdentity(error, log)) return { requeueAfterMs: 1000 };
      const verdict = identityVerdict(error);
      set(verdict.allowed);
      set(verdict.retrieved);
      set({
        type: 'TagsInSync',
        status: 'Unknown',
        reason: TagsInSyncReason.CredentialsUnavailable,
        message: 'Tags are not checked without credentials',
      });
      // Status claims no principal the cluster does not use now, and shows the chain that was checked.
      delete status.accountID;
      delete status.principalARN;
      status.identityChain = verdict.chain;
      transient = verdict.transient;
      this.deps.tagWork.cancel(key);
      resolver.release(holderOf(key));
      for (const other of this.deps.clusterNames.refuse(key, clusterNameOf(cluster))) this.deps.enqueue(other);
      log.warn('identity refused', {
        reason:
          verdict.retrieved.reason === PrincipalCredentialRetrievedReason.NotAttempted
            ? verdict.allowed.reason
            : verdict.retrieved.reason,
        error,
      });
    }

    const accountRefusal = session && this.#accountRefusal(session, log);
    if (session && accountRefusal) {
      // An account the platform did not bind to the identity's tenant: nothing is tagged; the event (a
      // new failure) says what the platform must declare.
      set(accountRefusal);
      set(IDENTITY_OK.retrieved);
      set({
        type: 'TagsInSync',
        status: 'Unknown',
        reason: accountRefusal.reason,
        message: "Nothing is tagged in an account the platform has not bound to the identity's tenant",
      });
      status.accountID = session.accountId;
      status.principalARN = session.principalArn;
      status.identityChain = session.chain;
      this.deps.tagWork.cancel(key);
      for (const other of this.deps.clusterNames.refuse(key, clusterNameOf(cluster))) this.deps.enqueue(other);
    } else if (session) {
      set(usageAllowed(session));
      set(IDENTITY_OK.retrieved);
      sightings.saw(session, cluster.metadata.namespace ?? '');
      status.accountID = session.accountId;
      status.principalARN = session.principalArn;
      status.identityChain = session.chain;
      const claimant: Claimant = {
        key,
        clusterName: clusterNameOf(cluster),
        accountId: session.accountId,
        regions: regionsOf(cluster),
      };
      for (const other of this.deps.clusterNames.record(claimant)) this.deps.enqueue(other);
      const { caches } = this.deps;
      const claim = nameClaim(cluster, claimant, {
        names: this.deps.clusterNames,
        clusters: caches.clustersNamed(claimant.clusterName),
        claiming: (accountId, region, clusterName) => caches.ledgerClaims.claiming(accountId, region, clusterName),
        ledger: this.#ledgerOf(cluster),
        legacyEligible: this.deps.legacyEligible,
      });
      if ('wait' in claim) {
        this.deps.tagWork.cancel(key);
        set(claim.wait);
        set({
          type: 'TagsInSync',
          status: 'Unknown',
          reason: TagsInSyncReason.WaitingForClusterNameClaim,
          message: claim.wait.message,
        });
      } else {
        // Another cluster's ledger claims the name: no AWS call at all, not even discovery.
        if ('refused' in claim) this.deps.tagWork.cancel(key);
        const tags =
          'refused' in claim
            ? claimedOutcome(claim.refused)
            : await this.#syncTags(cluster, key, session, claim, log, queuedAt);
        // Status is written when the tag work is done: its end enqueues the cluster again.
        if (tags === 'queued') return undefined;
        set(nameCondition(claimant, 'rivals' in claim ? claim.rivals : 0, tags.claimRefused));
        set(tags.condition);
        // lastSyncTime moves when a sync that ends in sync wrote tags or changed the figures; a quiet
        // resync (nothing written, nothing new) leaves it, so that it writes nothing to Kubernetes.
        // kubectl's In-Sync column: a printer column shows one field, so the controller writes the ratio.
        const { resourcesInSync, resourcesDiscovered } = tags.status;
        if (resourcesDiscovered !== undefined) tags.status.summary = `${resourcesInSync ?? 0}/${resourcesDiscovered}`;
        const { lastSyncTime, ...before } = status.tagging ?? {};
        const changed = tags.condition.status === 'True' && (tags.wrote || !isDeepStrictEqual(tags.status, before));
        const syncedAt = changed ? time : lastSyncTime;
        if (syncedAt) tags.status.lastSyncTime = syncedAt;
        status.tagging = tags.status;
        events.push(...tags.events, ...this.#ignoredReport(key, tags.ignoredBookkeepingKeys));
        transient ||= tags.transient;
      }
    }
    // kubectl's Chain column (-o wide): a printer column shows one value of a list, so the names are joined here.
    if (status.identityChain) status.identityChainSummary = status.identityChain.map(({ name }) => name).join(',');
    // keymaster_drifted_resources is the sum of what status says; a refused cluster counts none.
    this.deps.metrics.setDrifted(key, session ? (status.tagging?.resourcesDrifted ?? 0) : 0);
    set(readyCondition(conditions));
    for (const failure of newFailures(cluster.status?.conditions ?? [], conditions))
      events.push({ type: 'Warning', reason: failure.reason, message: failure.message });
    status.conditions = conditions;
    status.observedGeneration = generation;
    await this.#writeStatus(cluster, status);
    for (const event of events) await this.deps.events.record(cluster, event.type, event.reason, event.message);
    // A transient failure is retried with backoff; a refusal waits for a change to what it refers to.
    return transient ? { requeue: true } : undefined;
  }

  /**
   * Refuses the cluster when its own identity is of a tenant and the platform did not bind the account
   * it resolved into to that tenant (AWSAccountBinding). Identities without the tenancy label are the
   * platform's: never refused here.
   */
  #accountRefusal(
    session: IdentitySession,
    log: Logger,
  ): (ConditionUpdate<'PrincipalUsageAllowed'> & { reason: AccountRefusal }) | undefined {
    const { caches, tenantLabel } = this.deps;
    const own = session.chain[0];
    const identity = own && caches.identity(own.kind as IdentityObject['kind'], own.name);
    const tenant = identity?.metadata.labels?.[tenantLabel];
    if (!identity || tenant === undefined) return undefined;
    const bound = boundTenants(
      caches.accountBindings.get(session.accountId),
      session.accountId,
      caches.allIdentities(),
      tenantLabel,
    );
    const verdict = accountVerdict(identity, tenant, session.accountId, bound);
    if (verdict.allowed) return undefined;
    log.warn("account not bound to the identity's tenant", {
      accountID: session.accountId,
      identity: `${identity.kind}/${identity.metadata.name ?? ''}`,
      tenant,
      reason: verdict.reason,
    });
    return { type: 'PrincipalUsageAllowed', status: 'False', reason: verdict.reason, message: verdict.message };
  }

  /** The cluster's ledger as this process knows it now. */
  #ledgerOf(cluster: AWSCluster): ClusterLedger {
    const { ledgers, now, legacyEligible, metrics } = this.deps;
    return new ClusterLedger(cluster, {
      store: ledgers,
      now,
      legacyEligible: legacyEligible(cluster),
      onFull: () => metrics.countLedgerFull(),
    });
  }

  /**
   * A Warning when the cluster's resources carry keymaster.dev/ keys Keymaster ignores, once per key set
   * (and controller run): whoever wrote them, they are not Keymaster's, and it never removes them.
   */
  #ignoredReport(key: string, ignored: readonly string[] | undefined): TagOutcome['events'] {
    if (ignored === undefined) return [];
    const keys = ignored.join(', ');
    if (keys === (this.#reportedIgnored.get(key) ?? '')) return [];
    this.#reportedIgnored.set(key, keys);
    if (keys === '') return [];
    this.deps.metrics.countIgnoredBookkeeping();
    return [
      {
        type: 'Warning',
        reason: EventReason.BookkeepingTagIgnored,
        message: `The cluster's resources carry ${keys}: Keymaster writes no tag of its own (what it remembers is in its AWSClusterLedger), so these are someone else's; they are ignored and never removed. Whoever can write keymaster.dev/ tags on AWS may be trying to steer Keymaster: deny those tag writes (docs/operations.md).`,
      },
    ];
  }

  /** Writes status only when it changed: a resync that finds nothing new writes nothing. */
  async #writeStatus(cluster: AWSCluster, status: AWSClusterStatus): Promise<void> {
    if (isDeepStrictEqual(cluster.status ?? {}, status)) return;
    await this.deps.writer.replaceStatus({ ...cluster, status });
  }

  /**
   * The tag step: the outcome of the cluster's tag work on these very inputs if it has finished, else
   * the work is handed to the scheduler ('queued'). Paused tagging makes no AWS call and runs here.
   */
  async #syncTags(
    cluster: AWSCluster,
    key: string,
    session: IdentitySession,
    claim: Extract<NameClaim, { check: unknown }>,
    log: Logger,
    /** When the reconcile was queued (`TagWorkOptions.askedAt`). */
    askedAt: number,
  ): Promise<TagOutcome | 'queued'> {
    const { caches, tagWork, syncTags } = this.deps;
    const chain = session.chain
      .map(({ kind, name }) => caches.identity(kind as IdentityObject['kind'], name))
      .filter((object) => object !== undefined);
    const namespace = caches.namespaces.get(cluster.metadata.namespace ?? '');
    const policies = clusterLayerInputs(
      caches.tagPolicies.list(),
      cluster,
      namespace?.metadata?.labels ?? {},
      adoptedFrom(cluster, this.deps.adoption) !== undefined,
    );
    const work = { cluster, session, chain, policies, ledger: () => this.#ledgerOf(cluster), claim: claim.check };
    if (cluster.spec.tagging?.paused) {
      tagWork.cancel(key);
      return syncTags(work, log);
    }
    const inputs = tagTicketParts({ cluster, session, chain, policies, rivals: claim.rivals });
    const ticket = tagTicket(inputs);
    const sync = async (options: TagWorkOptions) => {
      const startedAt = this.deps.now().getTime();
      const known = this.#known.take(key, inputs, startedAt);
      // What the work left is kept packed, by the known sets alone: the outcome waits in the
      // scheduler until the cluster's reconcile takes it, thousands at once in a cold start.
      const { known: left, ...outcome } = await syncTags(
        { ...work, ...(known ? { known: known.resources } : {}) },
        log,
        options,
      );
      if (left) this.#known.record(key, inputs, { resources: left, discoveredAt: known?.discoveredAt ?? startedAt });
      return outcome;
    };
    const done = tagWork.take(key, ticket);
    if (done && 'error' in done) throw done.error;
    if (done) return done.outcome;
    tagWork.submit({
      cluster: key,
      slot: { accountId: session.accountId, region: cluster.spec.region },
      ticket,
      run: (signal, planning, release) =>
        sync({ signal, askedAt, expectedClusters: planning, writesSubmitted: release }),
    });
    return 'queued';
  }

  /**
   * With the AutoControllerIdentityCreator gate, creates the missing controller identity allowing no
   * namespace: the cluster is then refused with a condition naming the field ops edit to allow it.
   */
  async #createControllerIdentity(error: unknown, log: Logger): Promise<boolean> {
    if (!this.deps.autoControllerIdentity || !(error instanceof IdentityNotFoundError)) return false;
    if (error.link?.kind !== CONTROLLER_IDENTITY.kind || error.link.name !== SINGLETON_NAME) return false;
    try {
      await this.deps.writer.createClusterScoped({
        apiVersion: API_VERSION,
        kind: CONTROLLER_IDENTITY.kind,
        metadata: { name: SINGLETON_NAME },
        // Not every namespace, as CAPA does: that would let any tenant act as the controller.
        spec: { allowedNamespaces: { list: [] } },
      });
      log.info(
        'created AWSClusterControllerIdentity "default" allowing no namespace (feature gate AutoControllerIdentityCreator): list the namespaces that may use it in its spec.allowedNamespaces',
      );
    } catch (createError) {
      // Someone else created it meanwhile: it exists now, which is all that matters.
      if ((createError as { code?: number }).code !== 409) throw createError;
    }
    return true;
  }

  async #delete(cluster: AWSCluster, key: string, log: Logger): Promise<Result | undefined> {
    const finalizers = cluster.metadata.finalizers ?? [];
    if (!holds(finalizers, CLUSTER_FINALIZER)) return undefined;
    this.#forget(key);
    await this.deps.writer.setFinalizers(cluster, withoutFinalizer(finalizers, CLUSTER_FINALIZER));
    log.info('released: cached clients evicted, tags left on AWS');
    return undefined;
  }

  #forget(key: string): void {
    this.deps.tagWork.cancel(key);
    this.#known.forget(key);
    this.#reportedIgnored.delete(key);
    this.deps.metrics.setDrifted(key, 0);
    this.deps.resolver.release(holderOf(key));
    for (const other of this.deps.clusterNames.release(key)) this.deps.enqueue(other);
  }
}

/** Who holds a cluster's credential set in the resolver. */
const holderOf = (key: string) => `AWSCluster/${key}`;
