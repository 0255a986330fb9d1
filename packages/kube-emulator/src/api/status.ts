import type { JsonObject } from '../util/json.js';

/** A StatusCause: which field is wrong and how, as kubectl prints it (`field: message`). */
export interface StatusCause {
  reason: string;
  message: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** An error the API answers with: an HTTP code and a `Status` body, exactly as the real server words it. */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details: StatusDetails = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toStatus(): JsonObject {
    const status: JsonObject = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      code: this.code,
    };
    const details = Object.fromEntries(Object.entries(this.details).filter(([, value]) => value !== undefined));
    if (Object.keys(details).length > 0) status.details = details;
    return status;
  }
}

/** The resource a message names: `secrets` for the core group, `awsclusters.infrastructure.keymaster.dev` otherwise. */
export interface GroupResource {
  group: string;
  plural: string;
}

export const qualifiedResource = ({ group, plural }: GroupResource): string => (group ? `${plural}.${group}` : plural);

const groupDetail = (group: string): string | undefined => (group === '' ? undefined : group);

export const notFound = (resource: GroupResource, name: string): ApiError =>
  new ApiError(404, 'NotFound', `${qualifiedResource(resource)} "${name}" not found`, {
    name,
    group: groupDetail(resource.group),
    kind: resource.plural,
  });

export const alreadyExists = (resource: GroupResource, name: string): ApiError =>
  new ApiError(409, 'AlreadyExists', `${qualifiedResource(resource)} "${name}" already exists`, {
    name,
    group: groupDetail(resource.group),
    kind: resource.plural,
  });

export const conflict = (resource: GroupResource, name: string, why: string): ApiError =>
  new ApiError(409, 'Conflict', `Operation cannot be fulfilled on ${qualifiedResource(resource)} "${name}": ${why}`, {
    name,
    group: groupDetail(resource.group),
    kind: resource.plural,
  });

export const staleObject = (resource: GroupResource, name: string): ApiError =>
  conflict(
    resource,
    name,
    'the object has been modified; please apply your changes to the latest version and try again',
  );

/** 422 Invalid: `AWSCluster.infrastructure.keymaster.dev "x" is invalid: spec.region: Invalid value: ...`. */
export function invalid(kind: { group: string; kind: string }, name: string, causes: StatusCause[]): ApiError {
  const qualifiedKind = kind.group ? `${kind.kind}.${kind.group}` : kind.kind;
  const listed = causes.map((cause) => (cause.field ? `${cause.field}: ${cause.message}` : cause.message));
  const summary = listed.length === 1 ? listed[0]! : `[${listed.join(', ')}]`;
  return new ApiError(422, 'Invalid', `${qualifiedKind} "${name}" is invalid: ${summary}`, {
    name,
    group: groupDetail(kind.group),
    kind: kind.kind,
    causes,
  });
}

export const badRequest = (message: string): ApiError => new ApiError(400, 'BadRequest', message);

/** 403 Forbidden; a request for no one object (list, create, ...) has no name. */
export const forbidden = (resource: GroupResource, name: string | undefined, why: string): ApiError =>
  new ApiError(
    403,
    'Forbidden',
    `${qualifiedResource(resource)}${name ? ` ${JSON.stringify(name)}` : ''} is forbidden: ${why}`,
    { name: name || undefined, group: groupDetail(resource.group), kind: resource.plural },
  );

export const unauthorized = (): ApiError => new ApiError(401, 'Unauthorized', 'Unauthorized');

export const methodNotAllowed = (): ApiError =>
  new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');

export const gone = (message: string): ApiError => new ApiError(410, 'Expired', message);

export const pathNotFound = (): ApiError =>
  new ApiError(404, 'NotFound', 'the server could not find the requested resource');

export const unsupportedMediaType = (contentType: string): ApiError =>
  new ApiError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${contentType}`,
  );

export const notAcceptable = (): ApiError =>
  new ApiError(406, 'NotAcceptable', 'only the following media types are accepted: application/json');
