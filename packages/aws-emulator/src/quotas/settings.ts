import { isRecord } from '../iam/policy.js';
import { EC2_QUOTAS } from '../services/ec2/quotas.js';
import { STS_QUOTAS } from '../services/sts/quotas.js';
import { TAGGING_QUOTAS } from '../services/tagging/quotas.js';
import type { Quota } from './quota.js';

/**
 * Which quotas the emulator enforces: AWS's (`aws`, the default), none (`off`: a test about something
 * else that must burst past them), or AWS's with some buckets' numbers replaced, by bucket name.
 */
export type QuotaSettings = 'aws' | 'off' | Readonly<Record<string, QuotaLimit>>;

export interface QuotaLimit {
  readonly capacity: number;
  readonly refillPerSecond: number;
}

/** Every service's published quotas (each in its service's `quotas.ts`), by bucket name. */
export const AWS_QUOTAS: ReadonlyMap<string, Quota> = new Map(
  [...STS_QUOTAS, ...TAGGING_QUOTAS, ...EC2_QUOTAS].map((quota) => [quota.name, quota]),
);

const EXAMPLE = '"off", "aws" or {"tag:TagResources": {"capacity": 50, "refillPerSecond": 50}}';

/** Reads quota settings (a world's `quotas`, the admin body, the library option); `fail` names the field. */
export function parseQuotaSettings(
  value: unknown,
  path: string,
  fail: (path: string, problem: string) => never,
): QuotaSettings {
  if (value === 'aws' || value === 'off') return value;
  if (!isRecord(value)) fail(path, `must be ${EXAMPLE}`);
  const limits: Record<string, QuotaLimit> = {};
  for (const [name, limit] of Object.entries(value)) {
    const at = `${path}.${name}`;
    if (!AWS_QUOTAS.has(name)) fail(at, `is not a quota (quotas: ${[...AWS_QUOTAS.keys()].join(', ')})`);
    const fields = isRecord(limit) ? limit : {};
    const capacity = fields.capacity;
    const refillPerSecond = fields.refillPerSecond;
    if (typeof capacity !== 'number' || !Number.isFinite(capacity) || capacity < 1)
      fail(`${at}.capacity`, `must be a number of at least 1, got ${JSON.stringify(capacity)}`);
    if (typeof refillPerSecond !== 'number' || !Number.isFinite(refillPerSecond) || refillPerSecond < 0)
      fail(`${at}.refillPerSecond`, `must be a number of at least 0, got ${JSON.stringify(refillPerSecond)}`);
    const unknown = Object.keys(fields).find((key) => key !== 'capacity' && key !== 'refillPerSecond');
    if (unknown !== undefined) fail(`${at}.${unknown}`, 'is not a known field (known: capacity, refillPerSecond)');
    limits[name] = { capacity, refillPerSecond };
  }
  return limits;
}
