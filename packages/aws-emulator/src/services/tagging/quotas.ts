import { perAction, perSecond, type Quota } from '../../quotas/quota.js';

/** The Tag Editor quotas: requests per second per account and region, not adjustable. */
const TAG_EDITOR_QUOTAS = 'AWS General Reference, AWS Resource Groups and Tagging endpoints and quotas (Tag Editor)';

/** The Resource Groups Tagging API's published request quotas, each API its own bucket. */
export const TAGGING_QUOTAS: readonly Quota[] = [
  ...perAction('tag', ['GetResources'], perSecond(15, TAG_EDITOR_QUOTAS)),
  ...perAction(
    'tag',
    ['TagResources', 'UntagResources', 'GetTagKeys', 'GetTagValues'],
    perSecond(5, TAG_EDITOR_QUOTAS),
  ),
];
