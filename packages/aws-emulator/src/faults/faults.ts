import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { ControlRequestError } from '../errors.js';
import { isRecord } from '../iam/policy.js';
import { wildcardMatcher, type Matcher } from '../iam/patterns.js';
import { ApiError } from '../protocols/api-error.js';
import { TokenBuckets } from './token-buckets.js';

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
    const fields = record(input, 'a fault rule', '{"action": "sts:AssumeRole", "errorCode": "Throttling", "rate": 1}');
    const errorCode = optional<string>(
      fields,
      'errorCode',
      (v) => typeof v === 'string' && /^[\w.]+$/.test(v),
      'an error code',
    );
    const latencyMs = optional(
      fields,
      'latencyMs',
      (v) => isNumber(v, 0, 60_000),
      'a number of milliseconds (0-60000)',
    );
    if (errorCode === undefined && latencyMs === undefined) {
      throw new ControlRequestError(
        400,
        'a fault rule needs errorCode, latencyMs or both',
        'Add "errorCode" or "latencyMs".',
      );
    }
    const count = optional(fields, 'count', (v) => Number.isInteger(v) && (v as number) > 0, 'a whole number > 0');
    const rule: FaultRule = {
      id: randomUUID(),
      action: action(fields),
      ...(errorCode === undefined ? {} : { errorCode }),
      ...maybe(
        'message',
        optional<string>(fields, 'message', (v) => typeof v === 'string', 'a string'),
      ),
      ...maybe(
        'status',
        optional<number>(
          fields,
          'status',
          (v) => Number.isInteger(v) && isNumber(v, 400, 599),
          'an HTTP status (400-599)',
        ),
      ),
      rate: optional(fields, 'rate', (v) => isNumber(v, 0, 1), 'a number from 0 to 1') ?? 1,
      ...maybe('remaining', count),
      ...maybe('latencyMs', latencyMs),
    };
    this.#rules.push({ rule, matches: wildcardMatcher(rule.action, { ignoreCase: true }) });
    return rule;
  }

  /** Adds a throttling rule: `{action?, capacity, refillPerSecond}`. */
  throttle(input: unknown): ThrottleRule {
    const fields = record(input, 'a throttle rule', '{"action": "ec2:*", "capacity": 100, "refillPerSecond": 20}');
    const capacity = optional(fields, 'capacity', (v) => isNumber(v, 1, 1e9), 'a number >= 1');
    const refillPerSecond = optional(fields, 'refillPerSecond', (v) => isNumber(v, 0, 1e9), 'a number >= 0');
    if (capacity === undefined || refillPerSecond === undefined) {
      throw new ControlRequestError(400, 'a throttle rule needs capacity and refillPerSecond', 'Add both numbers.');
    }
    const rule: ThrottleRule = { id: randomUUID(), action: action(fields), capacity, refillPerSecond };
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

function record(input: unknown, what: string, example: string): Record<string, unknown> {
  if (!isRecord(input)) throw new ControlRequestError(400, `${what} must be a JSON object`, `For example ${example}.`);
  return input;
}

function action(fields: Record<string, unknown>): string {
  return (
    optional<string>(
      fields,
      'action',
      (v) => typeof v === 'string' && /^[\w*?:-]+$/.test(v),
      'an IAM action pattern such as "tag:*"',
    ) ?? '*'
  );
}

function optional<T = number>(
  fields: Record<string, unknown>,
  name: string,
  valid: (value: unknown) => boolean,
  what: string,
): T | undefined {
  const value = fields[name];
  if (value === undefined) return undefined;
  if (!valid(value)) {
    throw new ControlRequestError(400, `${name} must be ${what}, got ${JSON.stringify(value)}`, `Fix "${name}".`);
  }
  return value as T;
}

function maybe<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return value === undefined ? {} : ({ [key]: value } as { [P in K]: V });
}

function isNumber(value: unknown, min: number, max: number): boolean {
  return typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max;
}
