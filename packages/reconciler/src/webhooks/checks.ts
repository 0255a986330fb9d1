import { formatCause, validateObject } from '@keymaster/api';
import type { IdentityError } from '@keymaster/identity';
import { validateTags, type TagOrigin } from '@keymaster/tagging';
import type { Logger } from '../logging.js';
import { privilegeOf, type Privileged } from './privileged.js';
import type { WebhookContext } from './context.js';
import { allow, deny, type AdmissionRequest, type Verdict } from './review.js';

/** Every schema cause of the object (as the CRD would refuse it, transition rules included), as kubectl prints them. */
export const schemaProblems = (request: AdmissionRequest): string[] =>
  validateObject(request.object, { oldObject: request.oldObject, unknownFields: 'ignore' }).map(formatCause);

/** The full AWS tag rules (characters, lengths, `aws:`, reserved and ownership keys, IAM's case folding). */
export const tagProblems = (tags: readonly { key: string; value: string }[], origin: TagOrigin): string[] =>
  validateTags(tags, origin).problems.map((problem) => problem.message);

/** An identity error as the cluster's condition words it: what is wrong, then the fix. */
export const explain = (error: IdentityError): string =>
  error.hint ? `${error.message}. ${error.hint}` : error.message;

/** Whether a privileged requester bypasses a cross-object refusal; every bypass is logged with the user. */
export function bypassed(request: AdmissionRequest, privileged: Privileged, logger: Logger, refusal: string): boolean {
  const privilege = privilegeOf(request, privileged);
  if (privilege === undefined) return false;
  logger.info('admission check bypassed by a privileged principal', {
    user: request.userInfo.username,
    privilege,
    operation: request.operation,
    kind: request.kind.kind,
    namespace: request.namespace,
    name: request.name,
    refusal,
  });
  return true;
}

/**
 * A chain's problems as the webhook answers them: those `refuses` picks refused (403; a privileged
 * requester bypasses them, logged), every other one a warning (a missing identity, a Secret not there
 * yet: fixed after the object is applied), beside `warnings` of the webhook's own.
 */
export function chainVerdict(
  request: AdmissionRequest,
  context: Pick<WebhookContext, 'privileged' | 'logger'>,
  problems: readonly IdentityError[],
  refuses: (problem: IdentityError) => boolean,
  warnings: readonly string[] = [],
): Verdict {
  const refusals = problems.filter(refuses).map(explain);
  const all = [...problems.filter((problem) => !refuses(problem)).map(explain), ...warnings];
  if (refusals.length === 0) return allow(all);
  const refusal = refusals.join('; ');
  if (bypassed(request, context.privileged, context.logger, refusal))
    return allow([...all, `allowed as a privileged principal although ${refusal}`]);
  return deny(403, refusal, all);
}

/** Whether an update changes nothing but metadata or status (finalizers, labels): never refused. */
export const specUnchanged = (request: AdmissionRequest): boolean =>
  request.operation === 'UPDATE' &&
  JSON.stringify((request.object as { spec?: unknown } | undefined)?.spec) ===
    JSON.stringify((request.oldObject as { spec?: unknown } | undefined)?.spec);
