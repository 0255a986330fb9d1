import { perAction, type Quota } from '../../quotas/quota.js';

/** Request rate limiting: a bucket per API, account and region. */
const EC2_THROTTLING =
  'Amazon EC2 Developer Guide, Request throttling for the Amazon EC2 API (request token bucket sizes)';

/** EC2's published request quotas for its tagging actions. */
export const EC2_QUOTAS: readonly Quota[] = [
  ...perAction('ec2', ['CreateTags', 'DeleteTags'], { capacity: 100, refillPerSecond: 10, source: EC2_THROTTLING }),
  // DescribeTags is a non-mutating action: that category's bucket.
  ...perAction('ec2', ['DescribeTags'], { capacity: 100, refillPerSecond: 20, source: EC2_THROTTLING }),
];
