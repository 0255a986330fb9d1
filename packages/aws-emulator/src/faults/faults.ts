import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { ControlRequestError } from '../errors.js';
import { wildcardMatcher, type Matcher } from '../iam/patterns.js';
import { ApiError } from '../protocols/api-error.js';
import { numberField, ruleFields, stringField } from './rule-fields.js';
import { TokenBuckets } from '../token-buckets.js';

/** An injected failure or delay for the calls whose IAM action name matches `action` (`sts:AssumeRole`, `tag:*`, `*`). */
export interface FaultRule {
  readonly id: string;
  readonly action: string;
  /** The error code to answer with (`Throttling`, `ThrottledException`, `RequestLimitExceeded`, `InternalFailure`, ...). */
  readonly errorCode?: string;
  readonly message?: string;
  /** The HTTP status; by default what AWS sends with that code. */
  readonly status?: number;
  /** The share of matching calls that fail, 0 to 1 (default 1). */
  readonly rate: number;
  /** How many more calls may still fail; absent means no limit. */
  readonly remaining?: number;
  /** Milliseconds added before matching calls are answered. */
  readonly latencyMs?: number;
}

/** A token bucket per account and region for the matching calls, like EC2's request throttling. */
export interface ThrottleRule {
  readonly id: string;
  readonly action: string;
  readonly capacity: number;
  readonly refillPerSecond: number;
}

const STATUS_BY_CODE: Record<string, number> = {
  RequestLimitExceeded: 503,
  ServiceUnavailable: 503,
  Unavailable: 503,
  InternalFailure: 500,
  InternalError: 500,
  InternalServiceException: 500,
};

const THROTTLING_CODES = new Set(['Throttling', 'ThrottlingException', 'ThrottledException', 'RequestLimitExceeded']);

/** The fault and throttling rules in force, and what they do to one call. */
export class Faults {
  readonly #rules: { rule: FaultRule; matches: Matcher }[] = [];
  readonly #throttles: { rule: ThrottleRule; matches: Matcher }[] = [];
  readonly #buckets: TokenBuckets;

  constructor(clock: Clock) {
    this.#buckets = new TokenBuckets(clock);
  }

  /** Adds a fault rule: `{action?, errorCode?, message?, status?, rate?, count?, latencyMs?}`. */
  add(input: unknown): FaultRule {
    const fields = ruleFields(
      input,
      'a fault rule',
      '{"action": "sts:AssumeRole", "errorCode": "Throttling", "rate": 1}',
    );
    const errorCode = stringField(fields, 'errorCode', /^[\w.]+$/, 'an error code such as "Throttling"');
    const latencyMs = numberField(fields, 'latencyMs', { min: 0, max: 60_000 });
    if (errorCode === undefined && latencyMs === undefined) {
      throw new ControlRequestError(
        400,
        'a fault rule needs errorCode, latencyMs or both',
        'Add "errorCode" or "latencyMs".',
      );
    }
    const message = stringField(fields, 'message', /^/, 'a string');
    const status = numberField(fields, 'status', { min: 400, max: 599, integer: true });
    const remaining = numberField(fields, 'count', { min: 1, max: Number.MAX_SAFE_INTEGER, integer: true });
    const rule: FaultRule = {
      id: randomUUID(),
      action: actionField(fields),
      rate: numberField(fields, 'rate', { min: 0, max: 1 }) ?? 1,
      ...(errorCode === undefined ? {} : { errorCode }),
      ...(message === undefined ? {} : { message }),
      ...(status === undefined ? {} : { status }),
      ...(remaining === undefined ? {} : { remaining }),
      ...(latencyMs === undefined ? {} : { latencyMs }),
    };
    this.#rules.push({ rule, matches: wildcardMatcher(rule.action, { ignoreCase: true }) });
    return rule;
  }

  /** Adds a throttling rule: `{action?, capacity, refillPerSecond}`. */
  throttle(input: unknown): ThrottleRule {
    const fields = ruleFields(input, 'a throttle rule', '{"action": "ec2:*", "capacity": 100, "refillPerSecond": 20}');
    const capacity = numberField(fields, 'capacity', { min: 1, max: 1e9 });
    const refillPerSecond = numberField(fields, 'refillPerSecond', { min: 0, max: 1e9 });
    if (capacity === undefined || refillPerSecond === undefined) {
      throw new ControlRequestError(400, 'a throttle rule needs capacity and refillPerSecond', 'Add both numbers.');
    }
    const rule: ThrottleRule = { id: randomUUID(), action: actionField(fields), capacity, refillPerSecond };
    this.#throttles.push({ rule, matches: wildcardMatcher(rule.action, { ignoreCase: true }) });
    return rule;
  }

  list(): { faults: FaultRule[]; throttles: ThrottleRule[] } {
    return { faults: this.#rules.map(({ rule }) => rule), throttles: this.#throttles.map(({ rule }) => rule) };
  }

  remove(id: string): boolean {
    for (const list of [this.#rules, this.#throttles] as { rule: { id: string } }[][]) {
      const index = list.findIndex(({ rule }) => rule.id === id);
      if (index >= 0) {
        list.splice(index, 1);
        this.#buckets.forget(id);
        return true;
      }
    }
    return false;
  }

  clear(): void {
    for (const { rule } of this.#throttles) this.#buckets.forget(rule.id);
    this.#rules.length = 0;
    this.#throttles.length = 0;
  }

  /** The delay to add to a call, in milliseconds (the sum of the matching rules' latencies). */
  latencyFor(action: string): number {
    let latency = 0;
    for (const { rule, matches } of this.#rules)
      if (rule.latencyMs !== undefined && matches(action)) latency += rule.latencyMs;
    return latency;
  }

  /** The error a matching fault rule injects into this call, if one fires. */
  injectedError(action: string): ApiError | undefined {
    for (const entry of this.#rules) {
      const { rule, matches } = entry;
      if (rule.errorCode === undefined || !matches(action) || rule.remaining === 0) continue;
      if (Math.random() >= rule.rate) continue;
      if (rule.remaining !== undefined) entry.rule = { ...rule, remaining: rule.remaining - 1 };
      return new ApiError(
        rule.errorCode,
        rule.message ?? defaultMessage(rule.errorCode),
        rule.status ?? STATUS_BY_CODE[rule.errorCode] ?? 400,
      );
    }
    return undefined;
  }

  /** Whether a call must be throttled: takes a token from each matching bucket of this account and region. */
  throttled(action: string, account: string, region: string): boolean {
    let throttled = false;
    for (const { rule, matches } of this.#throttles) {
      if (matches(action) && !this.#buckets.take(rule, `${account}/${region}`)) throttled = true;
    }
    return throttled;
  }
}

function defaultMessage(code: string): string {
  if (THROTTLING_CODES.has(code)) return code === 'RequestLimitExceeded' ? 'Request limit exceeded.' : 'Rate exceeded';
  if ((STATUS_BY_CODE[code] ?? 400) >= 500) return 'We encountered an internal error. Please try again.';
  return `Injected fault ${code}`;
}

function actionField(fields: Record<string, unknown>): string {
  return stringField(fields, 'action', /^[\w*?:-]+$/, 'an IAM action pattern such as "tag:*"') ?? '*';
}
