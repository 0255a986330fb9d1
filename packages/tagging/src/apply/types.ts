import type { FailureKind } from '../aws/codes.js';

/** The IAM actions of the writes: the Tagging API's, or the service's own (`taggers/registry.ts`). */
export type WriteAction = 'tag:TagResources' | 'tag:UntagResources' | 'ec2:CreateTags' | 'ec2:DeleteTags';

/** The writes that remove keys. */
const REMOVALS: ReadonlySet<WriteAction> = new Set(['tag:UntagResources', 'ec2:DeleteTags']);

/** Whether `action` removes keys (else it sets tags). */
export const isRemoval = (action: WriteAction): boolean => REMOVALS.has(action);

/** One write, the same for every ARN: tags to set or keys to remove, with the action of the ARNs' tagger. */
export interface Write {
  action: WriteAction;
  region: string;
  /** The tags to set (writes that set only). */
  tags?: Record<string, string>;
  /** The keys set or removed. */
  keys: string[];
  /**
   * Removals whose tagger can make them conditional (EC2's DeleteTags): the value each removed key
   * must still have to be removed. A key not named here (a legacy bookkeeping tag) goes whatever its value.
   */
  values?: Record<string, string>;
  arns: string[];
}

/** A resource that Keymaster could not bring in line, and why. */
export interface TagFailure {
  arn: string;
  region: string;
  /** The write that failed. */
  action: WriteAction;
  /**
   * `AccessDenied`: the identity may not do this. `Throttled` / `Unavailable`: still failing after
   * every attempt. `Rejected`: AWS refused it for another reason. `NotVerified`: AWS accepted the
   * write but reading the tags back did not show it (or failed).
   */
  kind: Exclude<FailureKind, 'Gone'> | 'NotVerified';
  /** AWS's error code (`AccessDeniedException`, `InvalidParameterException`, ...), or `NotVerified`. */
  code: string;
  /** AWS's message, or what reading back found. */
  message: string;
  /** The keys the write was to set or remove. */
  keys: string[];
}

/** A discovered resource that no longer exists: AWS answered a write with "not found". */
export interface GoneResource {
  arn: string;
  region: string;
  code: string;
  message: string;
}
