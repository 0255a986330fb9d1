import { ApiError } from '../../protocols/api-error.js';
import { ec2Query } from '../../protocols/protocol.js';
import type { QueryService } from '../service.js';
import { describeTags } from './describe-tags.js';
import { createTags, deleteTags } from './tags.js';

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
  actions: { CreateTags: createTags, DeleteTags: deleteTags, DescribeTags: describeTags },
};
