import { atomicList, boolean, free, kindSchema, object, string } from '../../schema/builders.js';
import type { ResourceDef } from '../types.js';
import { defineBuiltin } from './define.js';

const resourceAttributes = object('The information for a resource access request.', {
  namespace: string('Namespace is the namespace of the action being requested.'),
  verb: string('Verb is a kubernetes resource API verb.'),
  group: string('Group is the API Group of the Resource.'),
  version: string('Version is the API Version of the Resource.'),
  resource: string('Resource is one of the existing resource types.'),
  subresource: string('Subresource is one of the existing resource types.'),
  name: string('Name is the name of the resource being requested.'),
});
const nonResourceAttributes = object('The information for a non-resource access request.', {
  path: string('Path is the URL path of the request.'),
  verb: string('Verb is the standard HTTP verb.'),
});
const status = object('Status is filled in by the server and indicates whether the request is allowed or not.', {
  allowed: boolean('Allowed is required. True if the action would be allowed, false otherwise.'),
  denied: boolean('Denied is optional. True if the action would be denied, otherwise false.'),
  reason: string('Reason is optional. It indicates why a request was allowed or denied.'),
});

/** authorization.k8s.io/v1 SelfSubjectAccessReview (`kubectl auth can-i`): created and answered, never stored. */
export const selfSubjectAccessReviews: ResourceDef = defineBuiltin({
  group: 'authorization.k8s.io',
  version: 'v1',
  plural: 'selfsubjectaccessreviews',
  kind: 'SelfSubjectAccessReview',
  namespaced: false,
  verbs: ['create'],
  schema: kindSchema('SelfSubjectAccessReview checks whether or the current user can perform an action.', {
    spec: object('Spec holds information about the request being evaluated.', {
      resourceAttributes,
      nonResourceAttributes,
    }),
    status,
  }),
  columns: [],
});

/**
 * authorization.k8s.io/v1 SubjectAccessReview: whether another user may do something, as an
 * aggregated server asks of the requests it was sent (system:auth-delegator may create them).
 */
export const subjectAccessReviews: ResourceDef = defineBuiltin({
  group: 'authorization.k8s.io',
  version: 'v1',
  plural: 'subjectaccessreviews',
  kind: 'SubjectAccessReview',
  namespaced: false,
  verbs: ['create'],
  schema: kindSchema('SubjectAccessReview checks whether or not a user or group can perform an action.', {
    spec: object('Spec holds information about the request being evaluated.', {
      resourceAttributes,
      nonResourceAttributes,
      user: string('User is the user you are testing for.'),
      groups: atomicList('Groups is the groups you are testing for.', string('A group.')),
      extra: free('Extra corresponds to the user.Info.GetExtra() method from the authenticator.'),
      uid: string('UID information about the requesting user.'),
    }),
    status,
  }),
  columns: [],
});
