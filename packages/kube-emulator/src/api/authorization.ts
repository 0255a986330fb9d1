import type { RbacAuthorizer } from '../auth/rbac.js';
import { selfSubjectAccessReviews } from '../resources/builtins/authorization.js';
import { checkBody, pruneUnknown } from '../resources/prepare.js';
import { apiVersionOf } from '../resources/types.js';
import { objectAt, stringAt, type JsonObject } from '../util/json.js';
import { bodyOf, writeOptions, type Call } from './handlers.js';
import { sendJson } from './respond.js';

/**
 * `POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews`: whether the caller may do what the
 * spec asks, with RBAC's reason (`RBAC: allowed by RoleBinding "b/ns" of Role "r" to User "u"`).
 * Without RBAC every request is allowed.
 */
export async function reviewAccess(authorizer: RbacAuthorizer | undefined, call: Call): Promise<void> {
  const options = writeOptions(call);
  const review = checkBody(selfSubjectAccessReviews, await bodyOf(call));
  pruneUnknown(selfSubjectAccessReviews, review, options);
  const spec = objectAt(review, 'spec') ?? {};
  const resource = objectAt(spec, 'resourceAttributes');
  const nonResource = objectAt(spec, 'nonResourceAttributes');
  let status: JsonObject = { allowed: true };
  if (authorizer && resource) {
    const decision = authorizer.decide(call.user, {
      verb: stringAt(resource, 'verb') ?? '',
      group: stringAt(resource, 'group') ?? '',
      resource: stringAt(resource, 'resource') ?? '',
      subresource: stringAt(resource, 'subresource') || undefined,
      namespace: stringAt(resource, 'namespace') || undefined,
      name: stringAt(resource, 'name') || undefined,
    });
    status = { allowed: decision.allowed, ...(decision.reason ? { reason: decision.reason } : {}) };
  } else if (authorizer && nonResource) {
    status = {
      allowed: authorizer.allowsPath(
        call.user,
        stringAt(nonResource, 'verb') ?? '',
        stringAt(nonResource, 'path') ?? '',
      ),
    };
  }
  sendJson(
    call.response,
    201,
    {
      kind: selfSubjectAccessReviews.kind,
      apiVersion: apiVersionOf(selfSubjectAccessReviews),
      metadata: {},
      spec,
      status,
    },
    { warnings: options.warnings },
  );
}
