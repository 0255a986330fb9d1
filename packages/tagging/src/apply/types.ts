import type { FailureKind } from '../aws/codes.js';

/** The IAM actions of the writes. */
export type WriteAction = 'tag:TagResources' | 'tag:UntagResources';

/** One write, the same for every ARN: tags to set (TagResources) or keys to remove (UntagResources). */
export interface Write {
  action: WriteAction;
  region: string;
  /** The tags to set (TagResources only). */
  tags?: Record<string, string>;
  /** The keys set or removed. */
  keys: string[];
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
