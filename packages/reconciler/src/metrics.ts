import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { NamespaceSets, ResolverObserver } from '@keymaster/identity';
import type { BudgetStats } from '@keymaster/tagging';
import type { TagSchedulerObserver } from './awscluster/tag-scheduler.js';
import { RuntimeMetrics } from './runtime/metrics.js';
import type { ShardObserver } from './runtime/shards.js';
import { KEYMASTER_VERSION } from './version.js';

type BudgetLabel = 'account' | 'region' | 'family';

/** controller-runtime's metrics plus Keymaster's own, in one registry served on /metrics. */
export class KeymasterMetrics {
  readonly registry = new Registry();
  readonly runtime = new RuntimeMetrics(this.registry);
  /**
   * The names of prom-client's process and Node.js metrics. Some are set in another's collect
   * (`process_cpu_seconds_total` in `process_cpu_user_seconds_total`'s): `/metrics?name[]=` runs them
   * all before answering for any of them.
   */
  readonly defaults: readonly string[];
  readonly stsCalls: Counter<'action' | 'outcome' | 'code' | 'requester'>;
  readonly credentialCache: Counter<'result'>;
  readonly awsCalls: Counter<'service' | 'operation' | 'code'>;
  readonly driftedResources: Gauge;
  readonly controllerCredentials: Gauge<'source'>;
  readonly buildInfo: Gauge<'version' | 'node_version' | 'platform'>;
  readonly tagWorkQueued: Gauge<'account' | 'region'>;
  readonly tagWorkRunning: Gauge<'account' | 'region'>;
  readonly tagWorkWait: Histogram;
  readonly shardOwned: Gauge<'shard'>;
  readonly shardHandovers: Counter<'shard' | 'event'>;
  readonly namespaceStsCalls: Counter<'namespace'>;
  readonly stsBudgetWaits: Counter<'namespace'>;
  readonly stsBudgetWait: Histogram;
  readonly credentialSets: Gauge<'namespace' | 'state'>;
  readonly credentialSetEvictions: Counter<'namespace'>;
  readonly requestsOverCap: Gauge<'namespace'>;
  readonly objectsParked: Gauge<'kind' | 'namespace'>;
  readonly bookkeepingIgnored: Counter;
  readonly ledgerFull: Counter;
  readonly awsBudgetRequests: Counter<BudgetLabel>;
  readonly awsBudgetWait: Counter<BudgetLabel>;
  readonly awsBudgetThrottles: Counter<BudgetLabel>;
  readonly #drifted = new Map<string, number>();
  /** The sum of `#drifted`, kept as it changes: a reconcile does not walk every cluster's count. */
  #driftedTotal = 0;
  #budgetStats: () => readonly BudgetStats[] = () => [];

  constructor() {
    const registers = [this.registry];
    const before = new Set(this.registry.getMetricsAsArray().map(({ name }) => name));
    collectDefaultMetrics({ register: this.registry });
    this.defaults = this.registry
      .getMetricsAsArray()
      .map(({ name }) => name)
      .filter((name) => !before.has(name));
    this.stsCalls = new Counter({
      name: 'keymaster_sts_calls_total',
      help: 'STS calls made to obtain or check credentials, by action, outcome and requester kind (AWSCluster, AWSCredentialsRequest)',
      labelNames: ['action', 'outcome', 'code', 'requester'],
      registers,
    });
    this.credentialCache = new Counter({
      name: 'keymaster_credential_cache_lookups_total',
      help: 'Credential set cache lookups, by result (hit, miss)',
      labelNames: ['result'],
      registers,
    });
    this.awsCalls = new Counter({
      name: 'keymaster_aws_calls_total',
      help: 'AWS API calls, by service, operation and AWS error code (OK on success)',
      labelNames: ['service', 'operation', 'code'],
      registers,
    });
    this.driftedResources = new Gauge({
      name: 'keymaster_drifted_resources',
      help: 'Resources whose tags were found drifted at the last reconcile of their cluster',
      registers,
    });
    this.controllerCredentials = new Gauge({
      name: 'keymaster_controller_credentials',
      help: "1 for the source of the controller's own AWS credentials found at start (environment, web-identity, container, profile, instance-metadata, provided), or none",
      labelNames: ['source'],
      registers,
    });
    // Prometheus' *_build_info convention: constant 1, the build in labels (join it to any series by job).
    this.buildInfo = new Gauge({
      name: 'keymaster_build_info',
      help: 'Always 1; labelled with the Keymaster version, the Node.js version and the platform it runs on',
      labelNames: ['version', 'node_version', 'platform'],
      registers,
    });
    // Labelled by account and region, never by cluster: the label set is as small as the accounts in use.
    this.tagWorkQueued = new Gauge({
      name: 'keymaster_tag_work_queued',
      help: "Clusters whose tag work waits in its AWS account and region's queue",
      labelNames: ['account', 'region'],
      registers,
    });
    this.tagWorkRunning = new Gauge({
      name: 'keymaster_tag_work_running',
      help: 'Clusters whose tag work holds a place now (until its writes are submitted), by AWS account and region',
      labelNames: ['account', 'region'],
      registers,
    });
    this.tagWorkWait = new Histogram({
      name: 'keymaster_tag_work_wait_seconds',
      help: "Time a cluster's tag work waited in its queue before it started",
      buckets: [0.01, 0.1, 0.5, 1, 5, 15, 30, 60, 120, 300, 600, 1800],
      registers,
    });
    // With --shards only: without, neither has a series.
    this.shardOwned = new Gauge({
      name: 'keymaster_shard_owned',
      help: '1 for each shard (--shards) this replica holds and reconciles, 0 for the others',
      labelNames: ['shard'],
      registers,
    });
    this.shardHandovers = new Counter({
      name: 'keymaster_shard_handovers_total',
      help: 'Shard Leases this replica acquired, released (to even the share out, or stopping) or lost (renewals failed for the renew deadline, or taken by another)',
      labelNames: ['shard', 'event'],
      registers,
    });
    // Labelled by namespace (finite, made by ops or their tenant groups); gauges drop a namespace's series
    // once it has nothing to count, counters keep theirs until the process restarts.
    this.namespaceStsCalls = new Counter({
      name: 'keymaster_namespace_sts_calls_total',
      help: "STS calls charged to a namespace's budget (--sts-rate-per-namespace): made for its AWSClusters and AWSCredentialsRequests",
      labelNames: ['namespace'],
      registers,
    });
    this.stsBudgetWaits = new Counter({
      name: 'keymaster_sts_budget_waits_total',
      help: "Times a namespace's work was put back to wait for its STS budget (--sts-rate-per-namespace), no call made",
      labelNames: ['namespace'],
      registers,
    });
    this.stsBudgetWait = new Histogram({
      name: 'keymaster_sts_budget_wait_seconds',
      help: "How long work waited for its namespace's STS budget, each time it was put back",
      buckets: [0.1, 0.5, 1, 5, 15, 30, 60, 120, 300],
      registers,
    });
    this.credentialSets = new Gauge({
      name: 'keymaster_credential_sets',
      help: 'Cached credential sets by namespace: pinned (in use by its AWSClusters and AWSCredentialsRequests, each set once) and unpinned (kept for it, bounded per namespace)',
      labelNames: ['namespace', 'state'],
      registers,
    });
    this.credentialSetEvictions = new Counter({
      name: 'keymaster_credential_set_evictions_total',
      help: "Unpinned credential sets dropped for room from their namespace's bound (20 a namespace): each is an AssumeRole again when next used; pinned sets are never evicted",
      labelNames: ['namespace'],
      registers,
    });
    this.requestsOverCap = new Gauge({
      name: 'keymaster_credentials_requests_over_cap',
      help: "AWSCredentialsRequests refused because their namespace's distinct credential sets reached --max-credential-sets-per-namespace",
      labelNames: ['namespace'],
      registers,
    });
    // Only namespaces past their bound have a series: the label set is as small as the namespaces parked.
    this.objectsParked = new Gauge({
      name: 'keymaster_objects_parked',
      help: 'Objects past their namespace bound (--max-clusters-per-namespace, --max-credentials-requests-per-namespace): cached as metadata only, no work held, Ready=False NamespaceLimitReached',
      labelNames: ['kind', 'namespace'],
      registers,
    });
    // No label: the keys are whatever someone wrote on AWS, and clusters are many.
    this.bookkeepingIgnored = new Counter({
      name: 'keymaster_bookkeeping_tags_ignored_total',
      help: "Clusters found with a new set of keymaster.dev/ tags on their resources, which Keymaster ignores (it writes none): someone else's, perhaps steering",
      registers,
    });
    this.ledgerFull = new Counter({
      name: 'keymaster_ledger_full_total',
      help: "Times a cluster's AWSClusterLedger was too large to record new removal memory (Delete then removes less)",
      registers,
    });
    // Read from the rate limiters at each scrape: one series per account, region and API family in use.
    const budgetCounter = (name: string, help: string, value: (stats: BudgetStats) => number) => {
      const counter: Counter<BudgetLabel> = new Counter({
        name,
        help,
        labelNames: ['account', 'region', 'family'],
        registers,
        collect: () => {
          counter.reset();
          for (const stats of this.#budgetStats())
            counter.inc({ account: stats.accountId, region: stats.region, family: stats.family }, value(stats));
        },
      });
      return counter;
    };
    this.awsBudgetRequests = budgetCounter(
      'keymaster_aws_budget_requests_total',
      'AWS requests let through by the budget of an account, region and API family (taggingReads: GetResources; taggingWrites: TagResources, UntagResources; ec2Writes: CreateTags, DeleteTags; ec2Reads: DescribeTags)',
      (stats) => stats.granted,
    );
    this.awsBudgetWait = budgetCounter(
      'keymaster_aws_budget_wait_seconds_total',
      "Time AWS requests waited for their account, region and API family's budget (--aws-tagging-read-rate, --aws-tagging-write-rate, --aws-ec2-write-rate, --aws-ec2-read-rate)",
      (stats) => stats.waitedMs / 1000,
    );
    this.awsBudgetThrottles = budgetCounter(
      'keymaster_aws_budget_throttles_total',
      'Throttling answers AWS gave to requests within the budget of an account, region and API family: each one halves the rate for a while',
      (stats) => stats.throttled,
    );
    this.buildInfo.set(
      { version: KEYMASTER_VERSION, node_version: process.version, platform: `${process.platform}/${process.arch}` },
      1,
    );
  }

  /** Which source of the SDK's default chain gave the controller its credentials at start (`none`: none). */
  setControllerCredentials(source: string): void {
    this.controllerCredentials.reset();
    this.controllerCredentials.set({ source }, 1);
  }

  /** The resolver's observer, feeding the STS, cache and AWS call metrics, and the per-namespace ones. */
  resolverObserver(): ResolverObserver {
    return {
      stsCall: (action, outcome, code, requester, namespace) => {
        this.stsCalls.inc({ action, outcome, code: code ?? 'OK', requester });
        this.namespaceStsCalls.inc({ namespace });
      },
      stsWait: (namespace, waitMs) => {
        this.stsBudgetWaits.inc({ namespace });
        this.stsBudgetWait.observe(waitMs / 1000);
      },
      credentialSets: (namespace, sets) => this.#setCredentialSets(namespace, sets),
      cacheLookup: (hit) => this.credentialCache.inc({ result: hit ? 'hit' : 'miss' }),
      credentialSetEvicted: (namespace) => this.credentialSetEvictions.inc({ namespace }),
      awsCall: (service, operation, code) => this.awsCalls.inc({ service, operation, code }),
    };
  }

  /** The tag scheduler's observer: queue depth and running work per account and region, and waits. */
  tagWorkObserver(): TagSchedulerObserver {
    return {
      depth: ({ accountId, region }, queued, running) => {
        this.tagWorkQueued.set({ account: accountId, region }, queued);
        this.tagWorkRunning.set({ account: accountId, region }, running);
      },
      waited: (seconds) => this.tagWorkWait.observe(seconds),
    };
  }

  /** The shard owner's observer: the shards held, and handovers. */
  shardObserver(): ShardObserver {
    return {
      owned: (shard, owned) => this.shardOwned.set({ shard: String(shard) }, owned ? 1 : 0),
      handover: (shard, event) => this.shardHandovers.inc({ shard: String(shard), event }),
    };
  }

  /** Where the AWS budgets' figures come from: the controller's `RateLimiters`. */
  watchAwsBudgets(stats: () => readonly BudgetStats[]): void {
    this.#budgetStats = stats;
  }

  countIgnoredBookkeeping(): void {
    this.bookkeepingIgnored.inc();
  }

  countLedgerFull(): void {
    this.ledgerFull.inc();
  }

  /** How many of a namespace's AWSCredentialsRequests the cap refuses; a namespace under it has no series. */
  setRequestsOverCap(namespace: string, refused: number): void {
    if (refused > 0) this.requestsOverCap.set({ namespace }, refused);
    else this.requestsOverCap.remove({ namespace });
  }

  #setCredentialSets(namespace: string, sets: NamespaceSets): void {
    for (const state of ['pinned', 'unpinned'] as const) {
      if (sets[state] > 0) this.credentialSets.set({ namespace, state }, sets[state]);
      else this.credentialSets.remove({ namespace, state });
    }
  }

  /** How many objects of a kind a namespace has parked: its series goes when none are. */
  parkedObserver(kind: string): (namespace: string, parked: number) => void {
    return (namespace, parked) => {
      if (parked === 0) this.objectsParked.remove({ kind, namespace });
      else this.objectsParked.set({ kind, namespace }, parked);
    };
  }

  /** Records one cluster's drifted count; the gauge is the sum over clusters. */
  setDrifted(cluster: string, count: number): void {
    this.#driftedTotal += count - (this.#drifted.get(cluster) ?? 0);
    if (count === 0) this.#drifted.delete(cluster);
    else this.#drifted.set(cluster, count);
    this.driftedResources.set(this.#driftedTotal);
  }
}
