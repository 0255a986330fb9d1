import { startAwsEmulator, type AwsEmulator, type CallRecord, type World } from '@keymaster/aws-emulator';
import type { ResourceTag } from '@keymaster/api';
import type { SdkClient, SdkClientClass } from '@keymaster/identity';
import {
  RateLimiters,
  reconcileTags,
  systemClock,
  resolveEffectiveTags,
  tagLayers,
  Taggers,
  type EffectiveTags,
  type RateLimitersOptions,
  type ReconcileTagsInput,
  type TaggingClock,
  type TaggingSession,
} from '../../src/index.js';
import { CLUSTER, cluster, policy } from '../fixtures.js';
import { ArnFaults } from './arn-faults.js';
import { ACCOUNT, REGIONS, TAGGER_KEYS } from './aws-world.js';

// The SDK warns once per process that its releases after January 2027 need Node 22; this project runs Node 20.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

/** Effective tags of the fixture cluster from a global policy and the cluster's own tags. */
export const effectiveTags = (global: ResourceTag[], clusterTags: Record<string, string>): EffectiveTags =>
  resolveEffectiveTags(tagLayers({ policy: policy(global), identities: [], cluster: cluster(clusterTags) }));

/** The tags of the tests: a Deny tag and a plain one from the global policy, a team from the cluster. */
export const EFFECTIVE = effectiveTags(
  [
    { key: 'red-hat-managed', value: 'true', overridePolicy: 'Deny' },
    { key: 'cost-center', value: '1000' },
  ],
  { team: 'analytics' },
);
export const EFFECTIVE_VALUES = { 'cost-center': '1000', 'red-hat-managed': 'true', team: 'analytics' };

/**
 * The emulator's clock as the limiters' and retries' clock: a sleep moves the emulator's time on at
 * once, so waits cost no real time and the emulator's own token buckets refill by the same time.
 */
export function emulatorClock(aws: AwsEmulator): TaggingClock {
  return {
    now: () => aws.clock.nowMs(),
    sleep: (ms) => {
      aws.clock.advance(ms / 1000);
      return Promise.resolve();
    },
  };
}

/**
 * A session from static keys: what tagging needs of an `IdentitySession`, its clients cached per
 * class and region. `maxAttempts` 1 leaves every retry to Keymaster (the SDK's own back off in real time).
 */
export function staticSession(url: string, faults: ArnFaults, maxAttempts = 1): TaggingSession {
  const clients = new Map<string, SdkClient>();
  const credentials = () => Promise.resolve(TAGGER_KEYS);
  return {
    accountId: ACCOUNT,
    client<C extends SdkClient>(Client: SdkClientClass<C>, region: string = REGIONS[0]): C {
      const key = `${Client.name}/${region}`;
      let client = clients.get(key);
      if (client === undefined) {
        const config = { region, credentials, endpoint: url, maxAttempts };
        client = new Client(config);
        faults.install(client, region);
        clients.set(key, client);
      }
      return client as C;
    },
  };
}

export interface Harness {
  aws: AwsEmulator;
  faults: ArnFaults;
  limiters: RateLimiters;
  clock: TaggingClock;
  /** Reconciles the fixture cluster across the three regions, with the EFFECTIVE tags unless overridden. */
  reconcile(input?: Partial<ReconcileTagsInput>): ReturnType<typeof reconcileTags>;
  /** Calls of an action the emulator answered (`tag:TagResources`), failed ones included. */
  calls(action: string): number;
  /** Calls of an action that succeeded. */
  succeeded(action: string): number;
  /** The calls of an action still in the emulator's log, oldest first. */
  recent(action: string): CallRecord[];
  /** Every resource's tags in the emulator now, by ARN. */
  resources(): Map<string, Record<string, string>>;
  /** Requests the limiters let through, all accounts and regions together. */
  granted(): number;
  stop(): Promise<void>;
}

export interface HarnessOptions {
  /** The limiters' budgets; AWS's (`AWS_BUDGETS`) by default. */
  budgets?: RateLimitersOptions['budgets'];
  sdkMaxAttempts?: number;
  /**
   * Wait in real time, the emulator enforcing AWS's quotas. By default the limiters and retries wait on
   * the emulator's clock instead, moving it on at once, and the quotas are off: concurrent waits move
   * that clock while other requests are in flight, so those arrive later in emulated time than they
   * left, a jitter of hundreds of milliseconds no real network has. Tests of throttling inject it.
   */
  realTime?: boolean;
  /** Which tagger writes each resource: `TAGGING_API_ONLY` by default. */
  taggers?: Taggers;
}

/**
 * The Resource Groups Tagging API for every resource, EC2's too: the suites that specify that tagger
 * (20 ARNs a call, `FailedResourcesMap`, GetResources read-back) run on this fixture's EC2 instances;
 * EC2's own tagger has its suite (`ec2-tagger.test.ts`).
 */
export const TAGGING_API_ONLY = new Taggers([]);

export async function startHarness(world: World, options: HarnessOptions = {}): Promise<Harness> {
  const aws = await startAwsEmulator({ world, quotas: options.realTime === true ? 'aws' : 'off' });
  const clock = options.realTime === true ? systemClock : emulatorClock(aws);
  const faults = new ArnFaults();
  const limiters = new RateLimiters({ ...(options.budgets ? { budgets: options.budgets } : {}), clock });
  const session = staticSession(aws.url, faults, options.sdkMaxAttempts);
  const errors = (action: string) =>
    Object.values(aws.calls.summary().errors[action] ?? {}).reduce((sum, count) => sum + count, 0);
  const calls = (action: string) => aws.calls.summary().byAction[action] ?? 0;
  return {
    aws,
    faults,
    limiters,
    clock,
    reconcile: (input = {}) =>
      reconcileTags({
        session,
        clusterName: CLUSTER,
        regions: REGIONS,
        effective: EFFECTIVE,
        limiters,
        clock,
        taggers: options.taggers ?? TAGGING_API_ONLY,
        ...input,
      }),
    calls,
    succeeded: (action) => calls(action) - errors(action),
    recent: (action) => aws.calls.summary().recent.filter((call) => call.action === action),
    resources: () => new Map(aws.world.listResources().map(({ arn, tags }) => [arn, tags])),
    granted: () => limiters.stats().reduce((sum, stats) => sum + stats.granted, 0),
    stop: () => aws.stop(),
  };
}
