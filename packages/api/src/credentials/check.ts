import { KeymasterError } from '../errors.js';
import type { AWSCredentialsRequestSpec } from '../generated/types.js';
import { LIMITS } from '../schema/patterns.js';
import {
  DEFAULT_CREDENTIALS_DURATION_SECONDS,
  SESSION_POLICY_MAX_CHARACTERS,
  sessionPolicyCharactersValid,
  sessionPolicyDocument,
} from './session-policy.js';

/** An IAM condition operator: letters, with an optional set prefix (ForAnyValue:StringLike). */
const CONDITION_OPERATOR = /^(ForAllValues:|ForAnyValue:)?[A-Za-z]+$/;

/** One thing wrong with a request: the field, what is wrong, and what to do. */
export interface CredentialsRequestProblem {
  field: string;
  problem: string;
  fix: string;
}

export interface CredentialsRequestContext {
  /** The identity's role is assumed with another role session (role chaining): AWS caps it at one hour. */
  chained?: boolean;
}

/**
 * What the CRD schema cannot check: the session policy as STS will receive it (its plaintext length
 * and characters), statements that are well formed but wrong (duplicate Sids, values missing, nothing
 * allowed), and the duration against the chain. Empty when the request is fine.
 */
export function checkCredentialsRequest(
  spec: AWSCredentialsRequestSpec,
  context: CredentialsRequestContext = {},
): CredentialsRequestProblem[] {
  const problems: CredentialsRequestProblem[] = [];
  const statements = spec.statements ?? [];
  const sids = new Map<string, number>();
  statements.forEach((statement, index) => {
    const field = `spec.statements[${index}]`;
    if (statement.sid) {
      const first = sids.get(statement.sid);
      if (first === undefined) sids.set(statement.sid, index);
      else
        problems.push({
          field: `${field}.sid`,
          problem: `duplicate Sid ${JSON.stringify(statement.sid)} (also spec.statements[${first}].sid): AWS refuses the policy`,
          fix: 'Give each statement its own sid, or leave sid out.',
        });
    }
    for (const [operator, keys] of Object.entries(statement.condition ?? {})) {
      if (!CONDITION_OPERATOR.test(operator))
        problems.push({
          field: `${field}.condition`,
          problem: `${JSON.stringify(operator)} is not an IAM condition operator name`,
          fix: 'Use an operator such as StringEquals, ArnLike or ForAnyValue:StringLike (letters only, optional ForAllValues:/ForAnyValue: prefix).',
        });
      for (const [key, values] of Object.entries(keys))
        if (values.length === 0)
          problems.push({
            field: `${field}.condition.${operator}.${key}`,
            problem: 'no values: AWS refuses a condition key without a value',
            fix: 'List at least one value, or remove the key.',
          });
    }
    if (!sessionPolicyCharactersValid(JSON.stringify(statement)))
      problems.push({
        field,
        problem: 'holds characters a session policy cannot carry (AWS takes tab, line breaks and U+0020-U+00FF only)',
        fix: 'Use only ASCII and Latin-1 characters in actions, resources and condition values.',
      });
  });
  if (statements.length > 0 && !spec.policyARNs?.length && statements.every(({ effect }) => effect === 'Deny'))
    problems.push({
      field: 'spec.statements',
      problem:
        'only Deny statements: a session policy allows only what one of its statements allows, so the credentials could do nothing',
      fix: 'Add an Allow statement for what the workload needs (the Deny statements then carve exceptions out of it).',
    });
  const policy = sessionPolicyDocument(statements);
  if (policy !== undefined && policy.length > SESSION_POLICY_MAX_CHARACTERS)
    problems.push({
      field: 'spec.statements',
      problem: `the session policy is ${policy.length} characters as sent to STS (minified JSON), over AWS's limit of ${SESSION_POLICY_MAX_CHARACTERS}`,
      fix: 'Merge statements with the same effect and resources, use wildcards in actions (s3:Get*), or move permissions into a managed policy and list it in policyARNs.',
    });
  const duration = spec.durationSeconds ?? DEFAULT_CREDENTIALS_DURATION_SECONDS;
  if (context.chained && duration > LIMITS.chainedDurationSeconds)
    problems.push({
      field: 'spec.durationSeconds',
      problem: `${duration} s, but the identity's role is assumed with another role session (role chaining), which AWS caps at ${LIMITS.chainedDurationSeconds} s`,
      fix: `Set durationSeconds to at most ${LIMITS.chainedDurationSeconds}, or use an identity whose role is assumed with long-lived keys or a web identity token.`,
    });
  return problems;
}

/** A request the controller cannot serve as written: every problem, each naming its field and fix. */
export class InvalidCredentialsRequestError extends KeymasterError {
  readonly problems: readonly CredentialsRequestProblem[];

  constructor(problems: readonly CredentialsRequestProblem[]) {
    super(
      'ERR_KEYMASTER_INVALID_CREDENTIALS_REQUEST',
      `invalid AWSCredentialsRequest: ${problems.map(({ field, problem }) => `${field}: ${problem}`).join('; ')}`,
      { hint: problems.map(({ fix }) => fix).join(' ') },
    );
    this.problems = problems;
  }
}
