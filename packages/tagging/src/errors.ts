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
