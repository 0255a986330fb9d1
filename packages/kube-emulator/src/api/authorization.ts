import type { RbacAuthorizer } from '../auth/rbac.js';
import type { User } from '../auth/tokens.js';
import { subjectAccessReviews } from '../resources/builtins/authorization.js';
import { checkBody, pruneUnknown } from '../resources/prepare.js';
import { apiVersionOf } from '../resources/types.js';
import { arrayAt, objectAt, stringAt, type JsonObject } from '../util/json.js';
import { bodyOf, writeOptions, type Call } from './handlers.js';
import { sendJson } from './respond.js';

/** The user a SubjectAccessReview's spec names (its groups, extra and uid as given). */
function reviewedUser(spec: JsonObject): User {
  const extra = objectAt(spec, 'extra') ?? {};
  return {
    name: stringAt(spec, 'user') ?? '',
    uid: stringAt(spec, 'uid') ?? '',
    groups: (arrayAt(spec, 'groups') ?? []).filter((group): group is string => typeof group === 'string'),
    extra: Object.fromEntries(
      Object.entries(extra).map(([key, values]) => [key, Array.isArray(values) ? values.map(String) : []]),
    ),
  };
}

/**
 * `POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews` (the caller) and `subjectaccessreviews`
 * (the user the spec names): whether that user may do what the spec asks, with RBAC's reason
 * (`RBAC: allowed by RoleBinding "b/ns" of Role "r" to User "u"`). Without RBAC every request is allowed.
 */
export async function reviewAccess(authorizer: RbacAuthorizer | undefined, call: Call): Promise<void> {
  const options = writeOptions(call);
  const review = checkBody(call.resource, await bodyOf(call));
  pruneUnknown(call.resource, review, options);
  const spec = objectAt(review, 'spec') ?? {};
  const user = call.resource === subjectAccessReviews ? reviewedUser(spec) : call.user;
  const resource = objectAt(spec, 'resourceAttributes');
  const nonResource = objectAt(spec, 'nonResourceAttributes');
  let status: JsonObject = { allowed: true };
  if (authorizer && resource) {
    const decision = authorizer.decide(user, {
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
      allowed: authorizer.allowsPath(user, stringAt(nonResource, 'verb') ?? '', stringAt(nonResource, 'path') ?? ''),
    };
  }
  sendJson(
    call.response,
    201,
    {
      kind: call.resource.kind,
      apiVersion: apiVersionOf(call.resource),
      metadata: {},
      spec,
      status,
    },
    { warnings: options.warnings },
  );
}
