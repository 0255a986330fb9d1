import { KeymasterError } from '@keymaster/api';
import type { TagProblem } from './problems.js';

/** The base of every error of @keymaster/tagging; codes are `ERR_KEYMASTER_TAGGING_*`. */
export class TaggingError extends KeymasterError {
  declare readonly code: `ERR_KEYMASTER_TAGGING_${string}`;

  constructor(
    code: `ERR_KEYMASTER_TAGGING_${string}`,
    message: string,
    options: { hint?: string; cause?: unknown } = {},
  ) {
    super(code, message, options);
  }
}

/** Tags that break AWS's or Keymaster's rules; `problems` holds one entry per broken rule. */
export class InvalidTagsError extends TaggingError {
  readonly problems: readonly TagProblem[];

  constructor(problems: readonly TagProblem[]) {
    super('ERR_KEYMASTER_TAGGING_INVALID_TAGS', problems.map((problem) => problem.message).join('; '), {
      hint: 'Fix or remove the tags named above; docs/tagging.md lists the rules.',
    });
    this.problems = problems;
  }
}

/** More user tags than AWS allows on one resource. */
export class TagLimitError extends TaggingError {
  constructor(count: number, limit: number, where: string) {
    super('ERR_KEYMASTER_TAGGING_TAG_LIMIT', `${where} would carry ${count} user tags; AWS allows ${limit}`, {
      hint: 'Drop tags from the AWSTagPolicy, the identities or the AWSCluster until the total fits.',
    });
  }
}

/** An argument of a tagging function is out of its bounds. */
export class TaggingInputError extends TaggingError {
  constructor(field: string, problem: string, fix: string) {
    super('ERR_KEYMASTER_TAGGING_INVALID_INPUT', `${field}: ${problem}`, { hint: fix });
  }
}

/** Where an AWS call went: the IAM action (`tag:GetResources`), the account and the region. */
export interface AwsCallSite {
  action: string;
  accountId: string;
  region: string;
}

/** An AWS call that failed for good: with an error no retry fixes, or still failing after its retries. */
export class AwsCallError extends TaggingError {
  readonly action: string;
  readonly accountId: string;
  readonly region: string;
  /** AWS's error code (`ThrottledException`, `InternalServiceException`, ...), or the network error's name. */
  readonly awsCode: string;

  constructor(
    site: AwsCallSite,
    aws: { code: string; message: string },
    options: { code?: `ERR_KEYMASTER_TAGGING_${string}`; hint?: string; cause?: unknown } = {},
  ) {
    super(
      options.code ?? 'ERR_KEYMASTER_TAGGING_AWS_CALL_FAILED',
      `${site.action} failed in account ${site.accountId}, region ${site.region}: ${aws.code}: ${aws.message}`,
      {
        hint: options.hint ?? 'The next reconcile tries again; if it keeps failing, check the AWS service health.',
        cause: options.cause,
      },
    );
    this.action = site.action;
    this.accountId = site.accountId;
    this.region = site.region;
    this.awsCode = aws.code;
  }
}

/** AWS refused an action to the cluster's identity (`AccessDenied`, `AccessDeniedException`, ...). */
export class TaggingAccessDeniedError extends AwsCallError {
  constructor(site: AwsCallSite, aws: { code: string; message: string }, cause?: unknown) {
    super(site, aws, {
      code: 'ERR_KEYMASTER_TAGGING_ACCESS_DENIED',
      hint: `Allow ${site.action} to the cluster's identity in account ${site.accountId}, or drop region ${site.region} from spec.tagging.extraRegions.`,
      cause,
    });
  }
}

/** Another AWSCluster owns the cluster name's resources in this account: this one may not tag them. */
export class ClusterNameClaimedError extends TaggingError {
  constructor(message: string) {
    super('ERR_KEYMASTER_TAGGING_CLUSTER_NAME_CLAIMED', message, {
      hint: 'Give this AWSCluster a spec.clusterName of its own (a new cluster), or use another account.',
    });
  }
}
