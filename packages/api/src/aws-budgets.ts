/**
 * The API families AWS counts apart, each with a budget of its own per account and region: the
 * Resource Groups Tagging API's reads (GetResources) and its writes (TagResources, UntagResources).
 */
export type ApiFamily = 'taggingReads' | 'taggingWrites';

/** A family's budget: requests per second, and how many may go at once after a quiet spell. */
export interface Budget {
  ratePerSecond: number;
  burst: number;
}

/**
 * The burst that keeps within an AWS quota of `ratePerSecond` requests a second. AWS publishes no burst,
 * so the strictest reading holds: a second's worth. AWS counts a request when it arrives, Keymaster when
 * it leaves, so the burst is a fifth smaller: requests that arrive up to 200 ms closer together than
 * they left still fit AWS's bucket.
 */
export const burstWithinQuota = (ratePerSecond: number): number => Math.max(1, Math.floor(ratePerSecond * 0.8));

/**
 * AWS's published quotas per account and region, each family's default (`keymaster run
 * --aws-tagging-read-rate`, `--aws-tagging-write-rate`): the Tag Editor quotas, GetResources 15
 * requests a second, TagResources and UntagResources 5.
 */
export const AWS_BUDGETS: Readonly<Record<ApiFamily, Budget>> = {
  taggingReads: { ratePerSecond: 15, burst: burstWithinQuota(15) },
  taggingWrites: { ratePerSecond: 5, burst: burstWithinQuota(5) },
};
