import type { AWSCredentialsRequestSpec, PolicyStatement } from '../generated/types.js';

/** AWS's limit on the plaintext of a session policy (AssumeRole's Policy), in characters. */
export const SESSION_POLICY_MAX_CHARACTERS = 2048;

/**
 * The characters AWS takes in a session policy: tab, line feed, carriage return and U+0020-U+00FF.
 * A statement with anything else (an emoji in a condition value) is refused by STS.
 */
const SESSION_POLICY_CHARACTERS = /^[\t\n\r\u0020-\u00ff]*$/u;

/** A statement as IAM's JSON spells it (docs/credentials.md maps each field). */
function iamStatement(statement: PolicyStatement): Record<string, unknown> {
  return {
    ...(statement.sid ? { Sid: statement.sid } : {}),
    Effect: statement.effect,
    Action: statement.actions,
    Resource: statement.resources,
    ...(statement.condition && Object.keys(statement.condition).length > 0 ? { Condition: statement.condition } : {}),
  };
}

/**
 * The inline session policy sent to STS for a request's statements: minified JSON (whitespace would
 * count against AWS's limit), or undefined when there are none.
 */
export function sessionPolicyDocument(statements: readonly PolicyStatement[] | undefined): string | undefined {
  if (!statements?.length) return undefined;
  return JSON.stringify({ Version: '2012-10-17', Statement: statements.map(iamStatement) });
}

/** What makes a request's session: the same for two requests means they may share one credential set. */
export interface SessionPolicy {
  /** The inline session policy (Policy), minified. */
  policy?: string;
  /** Managed session policies (PolicyArns), sorted. */
  policyARNs: string[];
  durationSeconds: number;
}

export const DEFAULT_CREDENTIALS_DURATION_SECONDS = 3600;
export const DEFAULT_RENEW_AT_PERCENT = 50;

/** A request's session policy, normalized so that equal policies compare equal. */
export function sessionPolicyOf(spec: AWSCredentialsRequestSpec): SessionPolicy {
  const policy = sessionPolicyDocument(spec.statements);
  return {
    ...(policy === undefined ? {} : { policy }),
    policyARNs: [...(spec.policyARNs ?? [])].sort(),
    durationSeconds: spec.durationSeconds ?? DEFAULT_CREDENTIALS_DURATION_SECONDS,
  };
}

/** Whether a policy's plaintext holds only characters AWS takes. */
export const sessionPolicyCharactersValid = (policy: string): boolean => SESSION_POLICY_CHARACTERS.test(policy);
