import type { ApiContext } from '../aws/region-api.js';
import type { Taggers } from '../apply/taggers/registry.js';
import type { SessionBatchers } from './session-batchers.js';

/**
 * What every AWS call of one reconcile shares, with the calls clusters of the same credentials share.
 * Apart from `ApiContext` so that the AWS calls the batchers make do not depend on the batchers.
 */
export interface CallContext extends ApiContext {
  batchers: SessionBatchers;
  /** Which tagger writes and reads each resource. */
  taggers: Taggers;
}
