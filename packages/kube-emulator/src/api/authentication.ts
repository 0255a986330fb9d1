import type { Authenticator } from '../auth/authenticator.js';
import type { ServiceAccountIssuer } from '../auth/service-accounts/issuer.js';
import { SERVICE_ACCOUNT_PREFIX, type User } from '../auth/tokens.js';
import { selfSubjectReviews, tokenRequests, tokenReviews } from '../resources/builtins/authentication.js';
import { secrets, serviceAccounts } from '../resources/builtins/core.js';
import { checkBody, now, pruneUnknown } from '../resources/prepare.js';
import { apiVersionOf, type ResourceDef } from '../resources/types.js';
import { fieldsOf, toFieldsV1 } from '../storage/field-paths.js';
import type { Objects, WriteOptions } from '../storage/objects.js';
import { arrayAt, isObject, objectAt, stringAt, text, type Json, type JsonObject } from '../util/json.js';
import { goDecodeError, type GoField } from './go-decode.js';
import { bodyOf, writeOptions, type Call } from './handlers.js';
import { sendJson } from './respond.js';
import { badRequest, conflict, invalid, notFound } from './status.js';

/** What the authentication endpoints work with. */
export interface AuthenticationParts {
  objects: Objects;
  issuer: ServiceAccountIssuer;
  authenticator: Authenticator;
}

/** TokenRequest's defaults and bounds (ValidateTokenRequest): one hour, at least 10 minutes, at most 2^32 s. */
const DEFAULT_EXPIRATION_SECONDS = 3600;
const MIN_EXPIRATION_SECONDS = 600;
const MAX_EXPIRATION_SECONDS = 2 ** 32;

const TOKEN_REQUEST_FIELDS: GoField[] = [
  { path: ['spec'], struct: 'TokenRequest', type: 'object', goType: 'v1.TokenRequestSpec' },
  { path: ['spec', 'audiences'], struct: 'TokenRequestSpec', type: '[]string' },
  { path: ['spec', 'expirationSeconds'], struct: 'TokenRequestSpec', type: 'int64' },
  { path: ['spec', 'boundObjectRef'], struct: 'TokenRequestSpec', type: 'object', goType: 'v1.BoundObjectReference' },
  ...['kind', 'apiVersion', 'name'].map((key): GoField => ({
    path: ['spec', 'boundObjectRef', key],
    struct: 'BoundObjectReference',
    type: 'string',
  })),
  { path: ['spec', 'boundObjectRef', 'uid'], struct: 'BoundObjectReference', type: 'string', goType: 'types.UID' },
];

const TOKEN_REVIEW_FIELDS: GoField[] = [
  { path: ['spec'], struct: 'TokenReview', type: 'object', goType: 'v1.TokenReviewSpec' },
  { path: ['spec', 'token'], struct: 'TokenReviewSpec', type: 'string' },
  { path: ['spec', 'audiences'], struct: 'TokenReviewSpec', type: '[]string' },
];

const strings = (value: Json | undefined): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];

/**
 * The body of a review or token request, decoded as kube-apiserver decodes it: the kind, Go's type
 * errors, then unknown fields (refused, warned of or dropped by fieldValidation).
 */
async function decoded(call: Call, kind: ResourceDef, fields: GoField[], options: WriteOptions): Promise<JsonObject> {
  const raw = await bodyOf(call);
  if (
    isObject(raw) &&
    (text(raw.apiVersion ?? apiVersionOf(kind)) !== apiVersionOf(kind) || text(raw.kind ?? kind.kind) !== kind.kind)
  ) {
    // Another kind decodes, then has no conversion to this one.
    const version = text(raw.apiVersion).split('/').pop()!;
    throw badRequest(
      `${text(raw.kind)} in version "${version}" cannot be handled as a ${kind.kind}: converting (${version}.${text(raw.kind)}) to (authentication.${kind.kind}): unknown conversion`,
    );
  }
  const body = checkBody(kind, raw);
  const problem = goDecodeError(body, fields);
  if (problem)
    throw badRequest(`${kind.kind} in version "${kind.version}" cannot be handled as a ${kind.kind}: ${problem}`);
  pruneUnknown(kind, body, options);
  return body;
}

/** The managedFields entry kube-apiserver records on the answer of a create it does not store. */
const managedFields = (kind: ResourceDef, body: JsonObject, options: WriteOptions, subresource?: string): Json => [
  {
    manager: options.fieldManager,
    operation: 'Update',
    apiVersion: apiVersionOf(kind),
    time: now(),
    fieldsType: 'FieldsV1',
    fieldsV1: toFieldsV1(fieldsOf(body, kind.schema)),
    ...(subresource ? { subresource } : {}),
  },
];

/** The object a token is bound to; Pods and Nodes never exist here, so binding to them is always NotFound. */
function boundSecret(objects: Objects, namespace: string, reference: JsonObject): JsonObject {
  const apiVersion = text(reference.apiVersion);
  const parts = apiVersion.split('/');
  const [group, version] = parts.length === 1 ? ['', apiVersion] : parts.length === 2 ? parts : ['', ''];
  const kind = text(reference.kind);
  const name = text(reference.name);
  if (group === '' && kind === 'Pod') throw notFound({ group: '', plural: 'pods' }, name);
  if (group === '' && kind === 'Node') throw notFound({ group: '', plural: 'nodes' }, name);
  if (group !== '' || kind !== 'Secret')
    throw badRequest(`cannot bind token to object of type ${group}/${version}, Kind=${kind}`);
  const secret = objects.get(secrets, namespace, name);
  const uid = text(reference.uid);
  if (uid !== '' && uid !== stringAt(objectAt(secret, 'metadata'), 'uid')) {
    throw conflict(
      { group: '', plural: 'Secret' },
      name,
      `the UID in the bound object reference (${uid}) does not match the UID in record. The object might have been deleted and then recreated`,
    );
  }
  return secret;
}

const reference = (object: JsonObject): JsonObject => {
  const metadata = objectAt(object, 'metadata');
  return { name: stringAt(metadata, 'name') ?? '', uid: stringAt(metadata, 'uid') ?? '' };
};

/** `POST /api/v1/namespaces/NS/serviceaccounts/NAME/token`: kube-apiserver's TokenREST.Create, in its order. */
export async function createToken(parts: AuthenticationParts, call: Call): Promise<void> {
  const namespace = call.namespace!;
  const name = call.name!;
  const options = writeOptions(call);
  const body = await decoded(call, tokenRequests, TOKEN_REQUEST_FIELDS, options);
  const metadata = objectAt(body, 'metadata')!;
  if (metadata.namespace && metadata.namespace !== namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  parts.objects.checkNamespace(serviceAccounts, namespace, name);
  if (metadata.name && metadata.name !== name) {
    throw invalid(tokenRequests, name, [
      {
        reason: 'FieldValueInvalid',
        field: 'metadata.name',
        message: `Invalid value: ${JSON.stringify(metadata.name)}: must match the service account name if specified`,
      },
    ]);
  }
  const account = parts.objects.get(serviceAccounts, namespace, name);
  // From 1.34 (TokenRequestServiceAccountUIDValidation, on by default): a request names its account's UID or none.
  const accountUid = stringAt(objectAt(account, 'metadata'), 'uid') ?? '';
  const requestedUid = text(metadata.uid ?? '');
  if (requestedUid !== '' && requestedUid !== accountUid) {
    throw conflict(
      { group: tokenRequests.group, plural: tokenRequests.kind },
      name,
      `the UID in the token request (${requestedUid}) does not match the UID of the service account (${accountUid})`,
    );
  }
  // Decoding defaults the expiration; the audiences are defaulted later, so they are not the caller's field.
  const spec: JsonObject = { ...objectAt(body, 'spec') };
  spec.expirationSeconds ??= DEFAULT_EXPIRATION_SECONDS;
  const fields = managedFields(tokenRequests, { metadata, spec }, options, 'token');
  const requested = spec.expirationSeconds as number;
  if (requested < MIN_EXPIRATION_SECONDS || requested > MAX_EXPIRATION_SECONDS) {
    const why = requested < MIN_EXPIRATION_SECONDS ? 'less than 10 minutes' : 'larger than 2^32 seconds';
    throw invalid(tokenRequests, '', [
      {
        reason: 'FieldValueInvalid',
        field: 'spec.expirationSeconds',
        message: `Invalid value: ${requested}: may not specify a duration ${why}`,
      },
    ]);
  }
  const boundRef = objectAt(spec, 'boundObjectRef');
  const secret = boundRef ? boundSecret(parts.objects, namespace, boundRef) : undefined;
  const max = parts.issuer.settings.maxExpirationSeconds;
  const expirationSeconds = max !== undefined && requested > max ? max : requested;
  if (expirationSeconds < requested) {
    options.warnings.push(`requested expiration of ${requested} seconds shortened to ${expirationSeconds} seconds`);
  }
  const audiences = strings(spec.audiences).length > 0 ? strings(spec.audiences) : parts.issuer.settings.apiAudiences;
  const issuedAt = Math.floor(parts.issuer.settings.now() / 1000);
  const token = parts.issuer.sign({
    aud: audiences,
    exp: issuedAt + expirationSeconds,
    iat: issuedAt,
    nbf: issuedAt,
    sub: `${SERVICE_ACCOUNT_PREFIX}${namespace}:${name}`,
    'kubernetes.io': {
      namespace,
      serviceaccount: reference(account),
      ...(secret ? { secret: reference(secret) } : {}),
    },
  });
  const answer = {
    kind: 'TokenRequest',
    apiVersion: apiVersionOf(tokenRequests),
    metadata: {
      ...metadata,
      name,
      namespace,
      uid: accountUid,
      creationTimestamp: timeOf(issuedAt),
      managedFields: fields,
    },
    spec: { audiences, expirationSeconds, boundObjectRef: boundRef ?? null },
    status: { token, expirationTimestamp: timeOf(issuedAt + expirationSeconds) },
  };
  sendJson(call.response, 201, answer, { warnings: options.warnings });
}

const timeOf = (seconds: number): string => new Date(seconds * 1000).toISOString().replace(/\.\d+Z$/, 'Z');

/** authentication/v1 UserInfo: extra only when there is some. */
const userInfo = (user: User): JsonObject => ({
  username: user.name,
  ...(user.uid ? { uid: user.uid } : {}),
  groups: user.groups,
  ...(user.extra && Object.keys(user.extra).length > 0 ? { extra: user.extra } : {}),
});

/** `POST /apis/authentication.k8s.io/v1/tokenreviews`: the token authenticated as a request's would be. */
export async function reviewToken(parts: AuthenticationParts, call: Call): Promise<void> {
  const options = writeOptions(call);
  const body = await decoded(call, tokenReviews, TOKEN_REVIEW_FIELDS, options);
  const spec = objectAt(body, 'spec') ?? {};
  const token = text(spec.token);
  if (token === '') throw badRequest('token is required for TokenReview in authentication');
  const verdict = parts.authenticator.token(token, strings(arrayAt(spec, 'audiences')));
  const status = verdict.user
    ? { authenticated: true, user: userInfo(verdict.user), audiences: verdict.audiences }
    : {
        user: {},
        // The bearer-token authenticator adds its own error to the token authenticators' ones.
        error: verdict.error === undefined ? 'invalid bearer token' : `[invalid bearer token, ${verdict.error}]`,
      };
  // No creationTimestamp: a zero time is left out (omitzero) from 1.35 on.
  const metadata = { ...objectAt(body, 'metadata'), managedFields: managedFields(tokenReviews, body, options) };
  const answer = { kind: 'TokenReview', apiVersion: apiVersionOf(tokenReviews), metadata, spec, status };
  sendJson(call.response, 201, answer, { warnings: options.warnings });
}

/** `POST /apis/authentication.k8s.io/v1/selfsubjectreviews` (`kubectl auth whoami`): who the caller is. */
export async function reviewSelf(call: Call): Promise<void> {
  const options = writeOptions(call);
  await decoded(call, selfSubjectReviews, [], options);
  const answer = {
    kind: 'SelfSubjectReview',
    apiVersion: apiVersionOf(selfSubjectReviews),
    metadata: { creationTimestamp: now() },
    status: { userInfo: userInfo(call.user) },
  };
  sendJson(call.response, 201, answer, { warnings: options.warnings });
}
