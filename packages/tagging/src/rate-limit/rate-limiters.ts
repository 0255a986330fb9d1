import { AWS_BUDGETS, type ApiFamily, type Budget } from '@keymaster/api';
import { TaggingInputError } from '../errors.js';
import { checkLimiterOptions, RateLimiter, type RateLimiterOptions, type RateLimiterStats } from './rate-limiter.js';

export interface RateLimitersOptions extends Pick<RateLimiterOptions, 'minRatePerSecond' | 'clock'> {
  /** Each family's budget; AWS's (`AWS_BUDGETS`) for a family not named. */
  budgets?: Partial<Record<ApiFamily, Budget>>;
}

/** A limiter's figures, with whose budget it keeps. */
export interface BudgetStats extends RateLimiterStats {
  accountId: string;
  region: string;
  family: ApiFamily;
}

/**
 * One rate limiter per AWS account, region and API family, made on first use. Create one for the whole
 * controller and pass it to every `reconcileTags`: clusters that act in the same account then share its
 * budgets, whichever identity they use, as AWS's own quotas are per account and region.
 */
export class RateLimiters {
  readonly #limiters = new Map<string, { key: Omit<BudgetStats, keyof RateLimiterStats>; limiter: RateLimiter }>();
  readonly #options: Record<ApiFamily, Required<RateLimiterOptions>>;

  /** `options` apply to every limiter this registry makes; they are checked here, once. */
  constructor(options: RateLimitersOptions = {}) {
    const { budgets = {}, ...common } = options;
    for (const family of Object.keys(budgets))
      if (!(family in AWS_BUDGETS))
        throw new TaggingInputError(
          `budgets.${family}`,
          'is not an API family',
          `Name one of ${Object.keys(AWS_BUDGETS).join(', ')}.`,
        );
    const checked = (family: ApiFamily) =>
      checkLimiterOptions({ ...common, ...(budgets[family] ?? AWS_BUDGETS[family]) });
    this.#options = Object.fromEntries(
      (Object.keys(AWS_BUDGETS) as ApiFamily[]).map((family) => [family, checked(family)]),
    ) as Record<ApiFamily, Required<RateLimiterOptions>>;
  }

  get(accountId: string, region: string, family: ApiFamily): RateLimiter {
    const name = `${accountId}/${region}/${family}`;
    let entry = this.#limiters.get(name);
    if (entry === undefined) {
      entry = { key: { accountId, region, family }, limiter: new RateLimiter(this.#options[family]) };
      this.#limiters.set(name, entry);
    }
    return entry.limiter;
  }

  /**
   * Every limiter's figures, in the order they were made. Each scrape of /metrics asks once per budget
   * metric: the key's fields are named, as spreading the key object was 15 times slower.
   */
  stats(): BudgetStats[] {
    return Array.from(this.#limiters.values(), ({ key: { accountId, region, family }, limiter }) => ({
      accountId,
      region,
      family,
      ...limiter.stats(),
    }));
  }
}
