import { atomicList, boolean, integer, kindSchema, object, string } from '../../schema/builders.js';
import type { Schema } from '../../schema/types.js';
import type { ResourceDef } from '../types.js';
import { defineBuiltin } from './define.js';

/** authentication.k8s.io/v1: reviews that are created and answered, never stored. */
export const AUTHENTICATION_GROUP = 'authentication.k8s.io';

const strings = (description: string): Schema => atomicList(description, string('An item.'));

const userInfo = object('UserInfo holds the information about the user needed to implement the user.Info interface.', {
  username: string('The name that uniquely identifies this user among all active users.'),
  uid: string('A unique value that identifies this user across time.'),
  groups: strings('The names of groups this user is a part of.'),
  extra: { type: 'object', description: 'Any additional information provided by the authenticator.' },
});

/** The body of `POST .../serviceaccounts/NAME/token` (the subresource's kind, not a resource of its own). */
const tokenRequestSchema: Schema = kindSchema('TokenRequest requests a token for a given service account.', {
  spec: object('Spec holds information about the request being evaluated', {
    audiences: strings('Audiences are the intendend audiences of the token.'),
    expirationSeconds: integer('ExpirationSeconds is the requested duration of validity of the request.', {
      format: 'int64',
    }),
    boundObjectRef: object('BoundObjectRef is a reference to an object that the token will be bound to.', {
      kind: string("Kind of the referent. Valid kinds are 'Pod' and 'Secret'."),
      apiVersion: string('API version of the referent.'),
      name: string('Name of the referent.'),
      uid: string('UID of the referent.'),
    }),
  }),
  status: object('Status is filled in by the server and indicates whether the token can be authenticated.', {
    token: string('Token is the opaque bearer token.'),
    expirationTimestamp: string('ExpirationTimestamp is the time of expiration of the returned token.', {
      format: 'date-time',
    }),
  }),
});

/** The kind of the `serviceaccounts/token` subresource; not a resource of its own (nothing serves its path). */
export const tokenRequests: ResourceDef = defineBuiltin({
  group: AUTHENTICATION_GROUP,
  version: 'v1',
  plural: 'serviceaccounts',
  kind: 'TokenRequest',
  namespaced: true,
  verbs: ['create'],
  schema: tokenRequestSchema,
  columns: [],
});

export const tokenReviews: ResourceDef = defineBuiltin({
  group: AUTHENTICATION_GROUP,
  version: 'v1',
  plural: 'tokenreviews',
  kind: 'TokenReview',
  namespaced: false,
  verbs: ['create'],
  schema: kindSchema('TokenReview attempts to authenticate a token to a known user.', {
    spec: object('Spec holds information about the request being evaluated', {
      token: string('Token is the opaque bearer token.'),
      audiences: strings(
        'Audiences is a list of the identifiers that the resource server presented with the token identifies as.',
      ),
    }),
    status: object('Status is filled in by the server and indicates whether the request can be authenticated.', {
      authenticated: boolean('Authenticated indicates that the token was associated with a known user.'),
      user: userInfo,
      audiences: strings(
        'Audiences are audience identifiers chosen by the authenticator that are compatible with both the TokenReview and token.',
      ),
      error: string("Error indicates that the token couldn't be checked"),
    }),
  }),
  columns: [],
});

export const selfSubjectReviews: ResourceDef = defineBuiltin({
  group: AUTHENTICATION_GROUP,
  version: 'v1',
  plural: 'selfsubjectreviews',
  kind: 'SelfSubjectReview',
  namespaced: false,
  verbs: ['create'],
  schema: kindSchema(
    'SelfSubjectReview contains the user information that the kube-apiserver has about the user making this request.',
    {
      status: object('Status is filled in by the server with the user attributes.', { userInfo }),
    },
  ),
  columns: [],
});
