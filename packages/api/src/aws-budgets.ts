/**
 * The API families AWS counts apart, each with a budget of its own per account and region: the
 * Resource Groups Tagging API's reads (GetResources) and its writes (TagResources, UntagResources),
 * EC2's tag writes (CreateTags, DeleteTags) and EC2's reads (DescribeTags, a non-mutating action).
 */
export type ApiFamily = 'taggingReads' | 'taggingWrites' | 'ec2Writes' | 'ec2Reads';

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
 * The burst within an EC2 token bucket of `capacity`: EC2 publishes its buckets, so a fifth under the
 * bucket, for the same reason as `burstWithinQuota`.
 */
const burstWithinBucket = (capacity: number): number => Math.floor(capacity * 0.8);

/**
 * AWS's published quotas per account and region, each family's default (`keymaster run
 * --aws-tagging-read-rate`, `--aws-tagging-write-rate`, `--aws-ec2-write-rate`, `--aws-ec2-read-rate`):
 * the Tag Editor quotas, GetResources 15 requests a second, TagResources and UntagResources 5; EC2's
 * request token buckets (Amazon EC2 API throttling), CreateTags and DeleteTags a bucket of 100 refilled
 * at 10 a second, non-mutating actions (DescribeTags) 100 refilled at 20.
 */
export const AWS_BUDGETS: Readonly<Record<ApiFamily, Budget>> = {
  taggingReads: { ratePerSecond: 15, burst: burstWithinQuota(15) },
  taggingWrites: { ratePerSecond: 5, burst: burstWithinQuota(5) },
  ec2Writes: { ratePerSecond: 10, burst: burstWithinBucket(100) },
  ec2Reads: { ratePerSecond: 20, burst: burstWithinBucket(100) },
};
