import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import {
  AWS_BUDGETS,
  burstWithinQuota,
  CAPA_EMPTY_SELECTOR_MODES,
  DEFAULT_CAPA_NAMESPACE,
  DEFAULT_MIN_RENEWAL_INTERVAL_MS,
  KeymasterError,
  type ApiFamily,
} from '@keymaster/api';
import type { CapaOptions } from '@keymaster/identity';
import { DEFAULT_MAX_CREDENTIAL_SETS_PER_NAMESPACE } from '../credentials/set-cap.js';
import { parseDuration } from '../runtime/duration.js';
import { parseBindAddress } from '../servers.js';
import type { LogFormat, LogLevel } from '../logging.js';
import { parseWebhookFlags, WEBHOOK_FLAGS, type WebhookFlags } from '../webhooks/flags.js';

export class FlagError extends KeymasterError {
  constructor(flag: string, value: string, problem: string, fix: string) {
    super('ERR_KEYMASTER_INVALID_FLAG', `--${flag}=${JSON.stringify(value)}: ${problem}`, { hint: fix });
  }
}

/** Feature gates and their defaults. */
export const FEATURE_GATES = { AutoControllerIdentityCreator: false } as const;
export type FeatureGates = Record<keyof typeof FEATURE_GATES, boolean>;

export interface RunFlags extends WebhookFlags {
  kubeconfig: string | undefined;
  namespace: string;
  watchNamespace: string | undefined;
  watchFilter: string | undefined;
  syncPeriodMs: number;
  tagLayerGracePeriodMs: number;
  maxConcurrentReconciles: number;
  metricsBindAddress: { host: string; port: number } | undefined;
  healthProbeBindAddress: { host: string; port: number } | undefined;
  leaderElect: boolean;
  /** --adopt-cluster-api: follow Cluster API's CAPA clusters in namespaces labelled keymaster.dev/adopt=cluster-api. */
  adoptClusterAPI: boolean;
  leaderElectionNamespace: string;
  leaderElectionId: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  /** --shards: 0 when not sharded. */
  shards: number;
  featureGates: FeatureGates;
  logLevel: LogLevel;
  logFormat: LogFormat;
  stsRegion: string;
  /**
   * --aws-tagging-read-rate, --aws-tagging-write-rate, --aws-ec2-write-rate, --aws-ec2-read-rate: each
   * tagging API family's budget per AWS account and region.
   */
  awsTaggingBudgets: Record<ApiFamily, TaggingRate>;
  /** --max-credential-sets-per-namespace: distinct credential sets one namespace's AWSCredentialsRequests may use. */
  maxCredentialSetsPerNamespace: number;
  /** --sts-rate-per-namespace: the STS calls each namespace may make. */
  stsRatePerNamespace: TaggingRate;
  /** --min-renewal-interval: no request's credentials are renewed sooner than this after they were obtained. */
  minRenewalIntervalMs: number;
  /** --max-clusters-per-namespace, --max-credentials-requests-per-namespace: what one namespace may hold of the controller. */
  perNamespace: PerNamespaceLimits;
  /** --capa-namespace, --capa-empty-selector: how CAPA's identities are read. */
  capa: CapaOptions;
}

/** --sts-rate-per-namespace's default: a call a second, 20 at once (see docs/operations.md, sizing). */
const DEFAULT_STS_RATE_PER_NAMESPACE = '1,20';

/** How many objects of each kind the controller serves per namespace (the oldest); the rest are parked. */
export interface PerNamespaceLimits {
  clusters: number;
  credentialsRequests: number;
}

export const DEFAULT_PER_NAMESPACE: PerNamespaceLimits = { clusters: 500, credentialsRequests: 100 };

/** The flags of `keymaster run`, named as controller-runtime's, with their defaults and what they do. */
export const RUN_FLAGS = {
  kubeconfig: { type: 'string', help: 'kubeconfig file (default: $KUBECONFIG, in-cluster, or ~/.kube/config)' },
  namespace: {
    type: 'string',
    default: 'keymaster-system',
    help: "the controller's namespace: static identities' Secrets live here",
  },
  'watch-namespace': { type: 'string', help: 'reconcile AWSClusters of this namespace only (default: all)' },
  'watch-filter': { type: 'string', help: 'reconcile only AWSClusters labelled cluster.x-k8s.io/watch-filter=<value>' },
  'sync-period': {
    type: 'string',
    default: '10m',
    help: 'how often every object is reconciled again (Go duration: 30s, 10m, 1h)',
  },
  'tag-layer-grace-period': {
    type: 'string',
    default: '10m',
    help: 'how old a tag policy or identity must be before removalPolicy: Delete removes the keys it dropped (a deleted or re-created one removes none)',
  },
  'max-concurrent-reconciles': { type: 'string', default: '10', help: 'AWSClusters reconciled at once' },
  'metrics-bind-address': { type: 'string', default: ':8080', help: 'address of /metrics; 0 turns it off' },
  'health-probe-bind-address': {
    type: 'string',
    default: ':8081',
    help: 'address of /healthz and /readyz; 0 turns it off',
  },
  'adopt-cluster-api': {
    type: 'boolean',
    default: false,
    help: "follow Cluster API's CAPA clusters in namespaces labelled keymaster.dev/adopt=cluster-api, and read CAPA's identities AWSClusters name (docs/capa.md)",
  },
  'leader-elect': {
    type: 'boolean',
    default: false,
    help: 'elect a leader among replicas on a Lease (run more than one replica)',
  },
  'leader-election-namespace': { type: 'string', help: 'namespace of the Lease (default: --namespace)' },
  'capa-namespace': {
    type: 'string',
    default: DEFAULT_CAPA_NAMESPACE,
    help: "CAPA's namespace: its static identities' Secrets live here",
  },
  'capa-empty-selector': {
    type: 'string',
    default: CAPA_EMPTY_SELECTOR_MODES[0],
    help: "what a CAPA identity's allowedNamespaces {selector: {}} allows: none (Keymaster's reading) or all-namespaces (CAPA's)",
  },
  'leader-election-id': { type: 'string', default: 'keymaster', help: 'name of the Lease' },
  'leader-elect-lease-duration': {
    type: 'string',
    default: '15s',
    help: 'how long other replicas wait after the last renewal before taking the Lease over',
  },
  'leader-elect-renew-deadline': {
    type: 'string',
    default: '10s',
    help: 'how long the leader keeps trying to renew before it gives up leading (less than the lease duration)',
  },
  'leader-elect-retry-period': {
    type: 'string',
    default: '2s',
    help: 'how often replicas try to acquire or renew the Lease',
  },
  shards: {
    type: 'string',
    default: '0',
    help: 'split AWSClusters into this many shards, each reconciled by the replica holding its Lease <leader-election-id>-shard-<i> (replaces --leader-elect; the --leader-elect-* timings apply); 0: one process reconciles all',
  },
  'feature-gates': {
    type: 'string',
    default: '',
    help: `comma-separated Gate=true|false; gates: ${Object.entries(FEATURE_GATES)
      .map(([gate, on]) => `${gate} (default ${String(on)})`)
      .join(', ')}`,
  },
  'log-level': { type: 'string', default: 'info', help: 'error, warn, info or debug' },
  'log-format': { type: 'string', default: 'json', help: 'json or text' },
  'sts-region': {
    type: 'string',
    default: 'us-east-1',
    help: 'region of the STS endpoint every session is obtained from',
  },
  'aws-tagging-read-rate': {
    type: 'string',
    default: budgetText('taggingReads'),
    help: "GetResources requests per second and burst per AWS account and region (AWS's quota; the burst a fifth under a second's, room for network jitter), e.g. 30,24; unlimited lifts it (benchmarks)",
  },
  // No default here: it would hide whether the deprecated --aws-tagging-rate should stand in for it.
  'aws-tagging-write-rate': {
    type: 'string',
    help: `TagResources and UntagResources requests per second and burst per AWS account and region (AWS's quota; the burst a fifth under a second's, room for network jitter), e.g. 10,8; unlimited lifts it (benchmarks) (default "${budgetText('taggingWrites')}")`,
  },
  'aws-tagging-rate': {
    type: 'string',
    help: 'deprecated: the former budget of every tagging call, now --aws-tagging-write-rate (which wins when both are given)',
  },
  'aws-ec2-write-rate': {
    type: 'string',
    default: budgetText('ec2Writes'),
    help: "EC2 CreateTags and DeleteTags requests per second and burst per AWS account and region (EC2's bucket of 100 refilled at 10/s; the burst a fifth under the bucket), e.g. 20,160; unlimited lifts it (benchmarks)",
  },
  'aws-ec2-read-rate': {
    type: 'string',
    default: budgetText('ec2Reads'),
    help: "EC2 DescribeTags requests per second and burst per AWS account and region (EC2's non-mutating bucket of 100 refilled at 20/s; the burst a fifth under the bucket), e.g. 40,160; unlimited lifts it (benchmarks)",
  },
  'max-credential-sets-per-namespace': {
    type: 'string',
    default: String(DEFAULT_MAX_CREDENTIAL_SETS_PER_NAMESPACE),
    help: "distinct credential sets one namespace's AWSCredentialsRequests may use (requests that ask alike share one); the oldest requests' first, the others refused before any STS call",
  },
  'sts-rate-per-namespace': {
    type: 'string',
    default: DEFAULT_STS_RATE_PER_NAMESPACE,
    help: "STS calls per second and burst each namespace's AWSClusters and AWSCredentialsRequests may make (work past it waits its turn), e.g. 2,40; unlimited lifts it",
  },
  'min-renewal-interval': {
    type: 'string',
    default: `${DEFAULT_MIN_RENEWAL_INTERVAL_MS / 60_000}m`,
    help: "an AWSCredentialsRequest's credentials are renewed no sooner than this after they were obtained, whatever its renewAtPercent (never later than their renewal window before expiry)",
  },
  'max-clusters-per-namespace': {
    type: 'string',
    default: String(DEFAULT_PER_NAMESPACE.clusters),
    help: 'AWSClusters served per namespace, the oldest first; the others are Ready=False (NamespaceLimitReached) and cost only their metadata',
  },
  'max-credentials-requests-per-namespace': {
    type: 'string',
    default: String(DEFAULT_PER_NAMESPACE.credentialsRequests),
    help: 'AWSCredentialsRequests served per namespace, the oldest first; the others are Ready=False (NamespaceLimitReached)',
  },
  ...WEBHOOK_FLAGS,
} as const;

/** `<rate>,<burst>` of AWS's budget for a family: the flags' defaults. */
function budgetText(family: ApiFamily): string {
  return `${AWS_BUDGETS[family].ratePerSecond},${AWS_BUDGETS[family].burst}`;
}

/** A budget of each AWS account and region: what the controller's `RateLimiters` are made with. */
export interface TaggingRate {
  ratePerSecond: number;
  burst: number;
}

/** `unlimited`: a bucket too large to run dry. AWS may still throttle; the limiters back off when it does. */
const UNLIMITED_TAGGING_RATE: TaggingRate = {
  ratePerSecond: Number.MAX_SAFE_INTEGER,
  burst: Number.MAX_SAFE_INTEGER,
};

/**
 * `<rate/s>[,<burst>]` or `unlimited`; `fix` says what to write. The burst defaults to `burstOf` the
 * rate: twice it for Keymaster's own budgets, within the quota for AWS's.
 */
function rateOf(
  flag: string,
  text: string,
  fix: string,
  burstOf: (ratePerSecond: number) => number = (rate) => Math.max(1, Math.ceil(2 * rate)),
): TaggingRate {
  if (text === 'unlimited') return UNLIMITED_TAGGING_RATE;
  const [rateText = '', burstText, ...extra] = text.split(',');
  if (extra.length > 0) throw new FlagError(flag, text, 'has more than two numbers', fix);
  const ratePerSecond = Number(rateText);
  if (rateText.trim() === '' || !Number.isFinite(ratePerSecond) || ratePerSecond <= 0)
    throw new FlagError(flag, text, `the rate "${rateText}" is not a number above 0`, fix);
  const burst = burstText === undefined ? burstOf(ratePerSecond) : Number(burstText);
  if (burstText?.trim() === '' || !Number.isInteger(burst) || burst < 1)
    throw new FlagError(flag, text, `the burst "${burstText ?? ''}" is not a whole number of at least 1`, fix);
  return { ratePerSecond, burst };
}

/** --aws-tagging-write-rate, else the deprecated --aws-tagging-rate, else AWS's quota. */
function writeRate(values: { 'aws-tagging-write-rate'?: string; 'aws-tagging-rate'?: string }): TaggingRate {
  const [flag, text] =
    values['aws-tagging-write-rate'] !== undefined || values['aws-tagging-rate'] === undefined
      ? ['aws-tagging-write-rate', values['aws-tagging-write-rate'] ?? budgetText('taggingWrites')]
      : ['aws-tagging-rate', values['aws-tagging-rate']];
  return rateOf(
    flag,
    text,
    `Write TagResources and UntagResources requests per second and optionally a burst: ${budgetText('taggingWrites')} (AWS's quota, the default), 10, 10,8, or unlimited.`,
    burstWithinQuota,
  );
}

function maxCredentialSets(text: string): number {
  const max = Number(text);
  if (!/^\d+$/.test(text) || max < 1)
    throw new FlagError(
      'max-credential-sets-per-namespace',
      text,
      'is not a whole number of at least 1',
      `Use e.g. ${DEFAULT_MAX_CREDENTIAL_SETS_PER_NAMESPACE} (the default): one namespace's requests that ask alike share one set.`,
    );
  return max;
}

/** Shards above this make every replica write too many Leases per retry period for no gain. */
const MAX_SHARDS = 256;

function parseShards(text: string, leaderElect: boolean, leaseId: string): number {
  const shards = Number(text);
  if (!/^\d+$/.test(text) || shards > MAX_SHARDS)
    throw new FlagError(
      'shards',
      text,
      `is not a whole number from 0 to ${MAX_SHARDS}`,
      'Use 0 (not sharded) or a few shards per replica, e.g. 6 for 3 replicas.',
    );
  if (shards > 0 && leaderElect)
    throw new FlagError(
      'shards',
      text,
      'cannot be combined with --leader-elect',
      "Drop --leader-elect: with --shards each shard's Lease elects its own holder, and shard 0's holder does the cluster-scoped work.",
    );
  // The Leases' names: <id>-shard-<i> and <id>-replica-<12 hex digits>, each a DNS label; the id is also a label value.
  if (shards > 0 && !/^[a-z0-9]([-a-z0-9]{0,37}[a-z0-9])?$/.test(leaseId))
    throw new FlagError(
      'leader-election-id',
      leaseId,
      'with --shards, names the shard Leases and must be lowercase letters, digits and dashes, at most 39 characters',
      'Use e.g. keymaster (the default).',
    );
  return shards;
}

function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new FlagError(flag, value, `must be one of ${allowed.join(', ')}`, `Use one of: ${allowed.join(', ')}.`);
}

function featureGates(text: string): FeatureGates {
  const gates: FeatureGates = { ...FEATURE_GATES };
  for (const item of text.split(',').filter(Boolean)) {
    const [gate = '', value = ''] = item.split('=');
    if (!(gate in FEATURE_GATES))
      throw new FlagError(
        'feature-gates',
        text,
        `unknown gate "${gate}"`,
        `Known gates: ${Object.keys(FEATURE_GATES).join(', ')}.`,
      );
    if (value !== 'true' && value !== 'false')
      throw new FlagError(
        'feature-gates',
        text,
        `gate "${gate}" has the value "${value}", which is neither true nor false`,
        `Write ${gate}=true or ${gate}=false.`,
      );
    gates[gate as keyof FeatureGates] = value === 'true';
  }
  return gates;
}

/**
 * Go's flag package takes `--leader-elect=false` (so that an overlay can turn a flag of the
 * Deployment off), the last occurrence winning; node's parseArgs takes no value for a boolean. Each
 * boolean flag is reduced here to its last value: present once when true, absent when false.
 */
function booleanValues(args: string[]): string[] {
  const last = new Map<string, boolean>();
  const rest = args.filter((arg) => {
    const match = /^--([\w-]+)(?:=(.*))?$/.exec(arg);
    const name = match?.[1] ?? '';
    if ((RUN_FLAGS as Record<string, { type: string } | undefined>)[name]?.type !== 'boolean') return true;
    const value = match?.[2] ?? 'true';
    if (value !== 'true' && value !== 'false')
      throw new FlagError(
        name,
        value,
        'is neither true nor false',
        `Write --${name}, --${name}=true or --${name}=false.`,
      );
    last.set(name, value === 'true');
    return false;
  });
  return [...rest, ...[...last].filter(([, on]) => on).map(([name]) => `--${name}`)];
}

/** Parses and checks `keymaster run`'s arguments; every mistake names the flag, the problem and the fix. */
export function parseRunFlags(args: string[]): RunFlags {
  const normalized = booleanValues(args);
  let values;
  try {
    values = parseArgs({ args: normalized, options: RUN_FLAGS, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new KeymasterError('ERR_KEYMASTER_INVALID_FLAG', (error as Error).message, {
      hint: 'Run `keymaster run --help` for the flags.',
    });
  }
  const syncPeriod = values['sync-period'];
  const syncPeriodMs = parseDuration(syncPeriod);
  if (syncPeriodMs === undefined || syncPeriodMs < 1000)
    throw new FlagError(
      'sync-period',
      syncPeriod,
      'is not a Go duration of at least 1s',
      'Write it like 30s, 10m or 1h.',
    );
  const grace = values['tag-layer-grace-period'];
  const tagLayerGracePeriodMs = parseDuration(grace);
  if (tagLayerGracePeriodMs === undefined)
    throw new FlagError('tag-layer-grace-period', grace, 'is not a Go duration', 'Write it like 0s, 10m or 1h.');
  type Count = 'max-concurrent-reconciles' | 'max-clusters-per-namespace' | 'max-credentials-requests-per-namespace';
  const atLeastOne = (flag: Count, example: string) => {
    const text = values[flag];
    const number = Number(text);
    if (!/^\d+$/.test(text) || number < 1)
      throw new FlagError(flag, text, 'is not a whole number of at least 1', `Use e.g. ${example}.`);
    return number;
  };
  const workers = atLeastOne('max-concurrent-reconciles', '10');
  const duration = (flag: `leader-elect-${'lease-duration' | 'renew-deadline' | 'retry-period'}`) => {
    const ms = parseDuration(values[flag]);
    if (ms === undefined || ms <= 0)
      throw new FlagError(flag, values[flag], 'is not a positive Go duration', 'Write it like 15s or 1m.');
    return ms;
  };
  const leaseDurationMs = duration('leader-elect-lease-duration');
  const renewDeadlineMs = duration('leader-elect-renew-deadline');
  const retryPeriodMs = duration('leader-elect-retry-period');
  if (renewDeadlineMs >= leaseDurationMs)
    throw new FlagError(
      'leader-elect-renew-deadline',
      values['leader-elect-renew-deadline'],
      `must be less than --leader-elect-lease-duration (${values['leader-elect-lease-duration']})`,
      'A leader must give up before others may take the Lease: e.g. 15s and 10s, the defaults.',
    );
  if (retryPeriodMs >= renewDeadlineMs)
    throw new FlagError(
      'leader-elect-retry-period',
      values['leader-elect-retry-period'],
      `must be less than --leader-elect-renew-deadline (${values['leader-elect-renew-deadline']})`,
      'The leader must try to renew several times before its deadline: e.g. 2s, the default.',
    );
  const shards = parseShards(values.shards, values['leader-elect'], values['leader-election-id']);
  const minRenewal = values['min-renewal-interval'];
  const minRenewalIntervalMs = parseDuration(minRenewal);
  if (minRenewalIntervalMs === undefined)
    throw new FlagError(
      'min-renewal-interval',
      minRenewal,
      'is not a Go duration',
      'Write it like 5m (the default), 1m, or 0s for renewAtPercent alone.',
    );
  const bind = (flag: 'metrics-bind-address' | 'health-probe-bind-address') => {
    const text = values[flag];
    const address = parseBindAddress(text);
    if (address === undefined && text !== '0')
      throw new FlagError(flag, text, 'is not an address', 'Use host:port, :port, or 0 to turn it off.');
    return address;
  };
  return {
    kubeconfig: values.kubeconfig,
    namespace: values.namespace,
    watchNamespace: values['watch-namespace'] || undefined,
    watchFilter: values['watch-filter'] || undefined,
    capa: {
      namespace: values['capa-namespace'],
      emptySelector: oneOf('capa-empty-selector', values['capa-empty-selector'], CAPA_EMPTY_SELECTOR_MODES),
    },
    syncPeriodMs,
    tagLayerGracePeriodMs,
    maxConcurrentReconciles: workers,
    metricsBindAddress: bind('metrics-bind-address'),
    healthProbeBindAddress: bind('health-probe-bind-address'),
    leaderElect: values['leader-elect'],
    adoptClusterAPI: values['adopt-cluster-api'],
    leaderElectionNamespace: values['leader-election-namespace'] ?? values.namespace,
    leaderElectionId: values['leader-election-id'],
    leaseDurationMs,
    renewDeadlineMs,
    retryPeriodMs,
    shards,
    featureGates: featureGates(values['feature-gates']),
    logLevel: oneOf('log-level', values['log-level'], ['error', 'warn', 'info', 'debug']),
    logFormat: oneOf('log-format', values['log-format'], ['json', 'text']),
    stsRegion: values['sts-region'],
    awsTaggingBudgets: {
      taggingReads: rateOf(
        'aws-tagging-read-rate',
        values['aws-tagging-read-rate'],
        `Write GetResources requests per second and optionally a burst: ${budgetText('taggingReads')} (AWS's quota, the default), 30, 30,24, or unlimited.`,
        burstWithinQuota,
      ),
      taggingWrites: writeRate(values),
      ec2Writes: rateOf(
        'aws-ec2-write-rate',
        values['aws-ec2-write-rate'],
        `Write CreateTags and DeleteTags requests per second and optionally a burst: ${budgetText('ec2Writes')} (EC2's bucket, the default), 20, 20,160, or unlimited.`,
        burstWithinQuota,
      ),
      ec2Reads: rateOf(
        'aws-ec2-read-rate',
        values['aws-ec2-read-rate'],
        `Write DescribeTags requests per second and optionally a burst: ${budgetText('ec2Reads')} (EC2's bucket, the default), 40, 40,160, or unlimited.`,
        burstWithinQuota,
      ),
    },
    maxCredentialSetsPerNamespace: maxCredentialSets(values['max-credential-sets-per-namespace']),
    stsRatePerNamespace: rateOf(
      'sts-rate-per-namespace',
      values['sts-rate-per-namespace'],
      `Write STS calls per second and optionally a burst: ${DEFAULT_STS_RATE_PER_NAMESPACE} (the default), 2, 2,40, or unlimited.`,
    ),
    minRenewalIntervalMs,
    perNamespace: {
      clusters: atLeastOne('max-clusters-per-namespace', String(DEFAULT_PER_NAMESPACE.clusters)),
      credentialsRequests: atLeastOne(
        'max-credentials-requests-per-namespace',
        String(DEFAULT_PER_NAMESPACE.credentialsRequests),
      ),
    },
    ...parseWebhookFlags(values),
  };
}

/** This replica's name in the Lease: the pod's hostname and a random suffix, as client-go does. */
export const leaderIdentity = (): string => `${hostname()}_${Math.random().toString(36).slice(2, 10)}`;

export function runHelp(): string {
  const lines = Object.entries(RUN_FLAGS).map(([name, flag]) => {
    const fallback = 'default' in flag && flag.default !== '' ? ` (default ${JSON.stringify(flag.default)})` : '';
    return `  --${name.padEnd(28)} ${flag.help}${fallback}`;
  });
  return [
    'Usage: keymaster run [flags]',
    '',
    'Runs the Keymaster controller. AWS endpoint and controller credentials come from the standard AWS environment (AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_PROFILE, web identity, ...).',
    '',
    'Flags:',
    ...lines,
    `  --${'version'.padEnd(28)} print the version and exit`,
  ].join('\n');
}
