import { ApiError } from '../../protocols/api-error.js';
import { awsQuery } from '../../protocols/protocol.js';
import { element, elements } from '../../protocols/xml.js';
import type { QueryService } from '../service.js';
import { assumeRole } from './assume-role.js';
import { assumeRoleWithWebIdentity } from './web-identity.js';

/** AWS STS over the query protocol: GetCallerIdentity, AssumeRole and (unsigned) AssumeRoleWithWebIdentity. */
export const sts: QueryService = {
  input: 'query',
  signingName: 'sts',
  iamPrefix: 'sts',
  version: '2011-06-15',
  protocol: awsQuery('https://sts.amazonaws.com/doc/2011-06-15/', '2011-06-15'),
  maxSkewSeconds: 300,
  accessDenied: (message) => new ApiError('AccessDenied', message, 403),
  throttled: () => new ApiError('Throttling', 'Rate exceeded', 400),
  actions: {
    // Needs no permission: IAM lets every authenticated caller ask who it is, even under an explicit deny.
    GetCallerIdentity: (_params, call) =>
      elements(
        element('Arn', call.principal.arn),
        element('UserId', call.principal.userId),
        element('Account', call.principal.accountId),
      ),
    AssumeRole: assumeRole,
  },
  unsignedActions: { AssumeRoleWithWebIdentity: assumeRoleWithWebIdentity },
};
