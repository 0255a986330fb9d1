import { perSecond, type Quota } from '../../quotas/quota.js';

/** STS's published request quota: one bucket for every STS request of the calling account (web identity: the role's). */
export const STS_QUOTAS: readonly Quota[] = [
  {
    name: 'sts:*',
    actions: ['GetCallerIdentity', 'AssumeRole', 'AssumeRoleWithWebIdentity'],
    ...perSecond(600, 'AWS IAM User Guide, IAM and AWS STS quotas (request rate for AWS STS)'),
  },
];
