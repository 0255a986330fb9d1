import { ApiError } from '../../protocols/api-error.js';
import { ec2Query } from '../../protocols/protocol.js';
import { perAction } from '../../quotas/quota.js';
import type { QueryService } from '../service.js';
import { describeTags } from './describe-tags.js';
import { createTags, deleteTags } from './tags.js';

/** Request rate limiting: a bucket per API, account and region. */
const EC2_THROTTLING =
  'Amazon EC2 Developer Guide, Request throttling for the Amazon EC2 API (request token bucket sizes)';

/** EC2's tagging actions over the EC2 query protocol. */
export const ec2: QueryService = {
  input: 'query',
  signingName: 'ec2',
  iamPrefix: 'ec2',
  version: '2016-11-15',
  protocol: ec2Query('http://ec2.amazonaws.com/doc/2016-11-15/'),
  maxSkewSeconds: 900,
  accessDenied: (message) =>
    new ApiError('UnauthorizedOperation', `You are not authorized to perform this operation. ${message}`, 403),
  throttled: () => new ApiError('RequestLimitExceeded', 'Request limit exceeded.', 503),
  quotas: [
    ...perAction('ec2', ['CreateTags', 'DeleteTags'], { capacity: 100, refillPerSecond: 10, source: EC2_THROTTLING }),
    // DescribeTags is a non-mutating action: that category's bucket.
    ...perAction('ec2', ['DescribeTags'], { capacity: 100, refillPerSecond: 20, source: EC2_THROTTLING }),
  ],
  actions: { CreateTags: createTags, DeleteTags: deleteTags, DescribeTags: describeTags },
};
