import type { ConditionContext } from './conditions.js';
import type { PolicyDocument, Statement } from './policy.js';

/** What a call asks to do: an IAM action (`tag:TagResources`) on a resource ARN (or `*`), with its condition keys. */
export interface AccessRequest {
  readonly action: string;
  readonly resource: string;
  readonly context: ConditionContext;
}

export type Decision =
  { readonly allowed: true } | { readonly allowed: false; readonly reason: string; readonly explicitDeny: boolean };

type Outcome = 'allow' | 'deny' | 'none';

/**
 * IAM's evaluation for one principal: an explicit deny anywhere wins; otherwise the identity's policies
 * must allow, and when the session carries session policies (AssumeRole's Policy / PolicyArns), so must
 * one of them: the session's permissions are the intersection of the two.
 */
export function evaluate(
  request: AccessRequest,
  identityPolicies: readonly PolicyDocument[],
  sessionPolicies: readonly PolicyDocument[],
): Decision {
  const identity = outcome(request, identityPolicies);
  const session = sessionPolicies.length === 0 ? 'allow' : outcome(request, sessionPolicies);
  if (identity === 'deny') return refuse('with an explicit deny in an identity-based policy', true);
  if (session === 'deny') return refuse('with an explicit deny in a session policy', true);
  if (identity === 'none') return refuse(`because no identity-based policy allows the ${request.action} action`, false);
  if (session === 'none') return refuse(`because no session policy allows the ${request.action} action`, false);
  return { allowed: true };
}

/** AWS's sentence for a refused call, as STS, the tagging API and EC2 phrase it. */
export function deniedMessage(callerArn: string, request: Pick<AccessRequest, 'action' | 'resource'>, reason: string) {
  const onResource = request.resource === '*' ? '' : ` on resource: ${request.resource}`;
  return `User: ${callerArn} is not authorized to perform: ${request.action}${onResource} ${reason}`;
}

function refuse(reason: string, explicitDeny: boolean): Decision {
  return { allowed: false, reason, explicitDeny };
}

function outcome(request: AccessRequest, policies: readonly PolicyDocument[]): Outcome {
  let allowed = false;
  for (const policy of policies) {
    for (const statement of policy.statements) {
      if (!applies(statement, request)) continue;
      if (statement.effect === 'Deny') return 'deny';
      allowed = true;
    }
  }
  return allowed ? 'allow' : 'none';
}

function applies(statement: Statement, request: AccessRequest): boolean {
  const actionMatches = statement.actions
    ? statement.actions.some((matches) => matches(request.action))
    : !statement.notActions!.some((matches) => matches(request.action));
  if (!actionMatches) return false;
  const resourceMatches = statement.resources
    ? statement.resources.some((matches) => matches(request.resource))
    : !statement.notResources!.some((matches) => matches(request.resource));
  return resourceMatches && statement.conditions.every((condition) => condition.test(request.context));
}
