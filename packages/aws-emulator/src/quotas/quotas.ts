import type { Clock } from '../clock.js';
import { ControlRequestError } from '../errors.js';
import { TokenBuckets } from '../token-buckets.js';
import type { Quota } from './quota.js';
import { AWS_QUOTAS, parseQuotaSettings, type QuotaSettings } from './settings.js';

/** A quota as the emulator enforces it now: AWS's numbers, or those the settings put in their place. */
export interface QuotaView extends Quota {
  readonly overridden: boolean;
}

/**
 * AWS's request quotas, enforced: each call takes a token from its action's bucket for the calling
 * account and region, and an empty bucket answers with the service's own throttling error. The
 * buckets refill on the emulator's clock, so emulated time (benchmarks) refills them as AWS would.
 */
export class Quotas {
  readonly #buckets: TokenBuckets;
  /** The buckets in force by IAM action (`ec2:CreateTags`); empty when the quotas are off. */
  #byAction = new Map<string, Quota>();
  #settings: QuotaSettings = 'aws';

  constructor(clock: Clock, settings: QuotaSettings = 'aws') {
    this.#buckets = new TokenBuckets(clock);
    this.#apply(settings);
  }

  /** Takes a token for a call of `iamAction` (`tag:TagResources`); false when its bucket is empty (throttle it). */
  admits(iamAction: string, account: string, region: string): boolean {
    const quota = this.#byAction.get(iamAction);
    return quota === undefined || this.#buckets.take({ id: quota.name, ...quota }, `${account}/${region}`);
  }

  /** `"aws"`, `"off"` or replacement numbers by bucket name; every bucket starts full again. */
  set(input: unknown): void {
    this.#apply(
      parseQuotaSettings(input, 'quotas', (path, problem) => {
        throw new ControlRequestError(400, `${path}: ${problem}`, 'GET /_emulator/quotas lists the quotas by name.');
      }),
    );
  }

  list(): { settings: QuotaSettings; quotas: QuotaView[] } {
    const inForce = new Set(this.#byAction.values());
    return {
      settings: this.#settings,
      quotas: [...inForce].map((quota) => ({ ...quota, overridden: quota !== AWS_QUOTAS.get(quota.name) })),
    };
  }

  #apply(settings: QuotaSettings): void {
    for (const name of AWS_QUOTAS.keys()) this.#buckets.forget(name);
    this.#settings = settings;
    this.#byAction = new Map();
    if (settings === 'off') return;
    for (const quota of AWS_QUOTAS.values()) {
      const limit = settings === 'aws' ? undefined : settings[quota.name];
      const inForce = limit === undefined ? quota : { ...quota, ...limit };
      const prefix = quota.name.slice(0, quota.name.indexOf(':'));
      for (const action of quota.actions) this.#byAction.set(`${prefix}:${action}`, inForce);
    }
  }
}
