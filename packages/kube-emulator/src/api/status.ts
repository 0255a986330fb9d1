import type { JsonObject } from '../util/json.js';

/** A StatusCause: which field is wrong and how, as kubectl prints it (`field: message`). */
export interface StatusCause {
  /** Absent in the causes of admission refusals and internal errors (Go's omitempty). */
  reason?: string;
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

/**
 * An error the API answers with: an HTTP code and a `Status` body, exactly as the real server words
 * it. `details` is written when given, even empty (`{}`) as kube-apiserver does for some errors; an
 * empty `reason` is left out (its 500s from storage have none). `warnings` go into Warning headers.
 */
export class ApiError extends Error {
  readonly details: StatusDetails;
  /** The Status's ListMeta, when it has one (a 410 for a continue token carries a token to go on). */
  listMeta?: JsonObject;
  /** Whether the Status carries `details` (kube-apiserver writes `{}` for some errors, nothing for others). */
  private readonly withDetails: boolean;

  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    details?: StatusDetails,
    readonly warnings: string[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
    this.details = details ?? {};
    this.withDetails = details !== undefined;
  }

  toStatus(): JsonObject {
    const status: JsonObject = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: this.listMeta ?? {},
      status: 'Failure',
      message: this.message,
      ...(this.reason ? { reason: this.reason } : {}),
      code: this.code,
    };
    const details = Object.fromEntries(Object.entries(this.details).filter(([, value]) => value !== undefined));
    if (this.withDetails || Object.keys(details).length > 0) status.details = details;
    return status;
  }
}

/** An answer in plain text rather than a Status, as Go's http.Error writes it (the message is the body). */
export class PlainTextError extends ApiError {}

/**
 * Paths no API serves: Go's plain-text `404 page not found`, as kube-apiserver answers for groups,
 * versions and custom resources it does not know (built-in group versions answer a NotFound Status).
 */
export class PageNotFound extends PlainTextError {
  constructor() {
    super(404, 'NotFound', '404 page not found\n');
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

/** A delete precondition that does not hold: the message names the kind, e.g. `on AWSCluster.infrastructure.keymaster.dev "x"`. */
export const preconditionFailed = (resource: GroupResource & { kind: string }, name: string, why: string): ApiError => {
  const qualifiedKind = resource.group ? `${resource.kind}.${resource.group}` : resource.kind;
  return new ApiError(409, 'Conflict', `Operation cannot be fulfilled on ${qualifiedKind} "${name}": ${why}`, {
    name,
    group: groupDetail(resource.group),
    kind: resource.kind,
  });
};

/** A replace of a custom resource without metadata.resourceVersion (the message names the resource, not the kind). */
export const resourceVersionRequired = (resource: GroupResource, name: string): ApiError => {
  const cause = {
    reason: 'FieldValueInvalid',
    field: 'metadata.resourceVersion',
    message: 'Invalid value: 0: must be specified for an update',
  };
  return new ApiError(
    422,
    'Invalid',
    `${qualifiedResource(resource)} "${name}" is invalid: ${cause.field}: ${cause.message}`,
    { name, group: groupDetail(resource.group), kind: resource.plural, causes: [cause] },
  );
};

/** kube-apiserver's 500s from storage: no reason, no details. */
export const storageError = (message: string): ApiError => new ApiError(500, '', message);

/** 422 Invalid: `AWSCluster.infrastructure.keymaster.dev "x" is invalid: spec.region: Invalid value: ...`. */
export function invalid(kind: { group: string; kind: string }, name: string, causes: StatusCause[]): ApiError {
  const qualifiedKind = kind.group ? `${kind.kind}.${kind.group}` : kind.kind;
  // Go's ErrorList.ToAggregate drops repeated messages; the causes keep them.
  const listed = [
    ...new Set(causes.map((cause) => (cause.field ? `${cause.field}: ${cause.message}` : cause.message))),
  ];
  const summary = listed.length === 1 ? listed[0]! : `[${listed.join(', ')}]`;
  return new ApiError(422, 'Invalid', `${qualifiedKind} "${name}" is invalid: ${summary}`, {
    name: name || undefined,
    group: groupDetail(kind.group),
    kind: kind.kind,
    causes,
  });
}

/** 422 for bad request options, e.g. `CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: ...`. */
export const invalidOptions = (kind: string, causes: StatusCause[]): ApiError =>
  invalid({ group: 'meta.k8s.io', kind }, '', causes);

/** `Unsupported value: "x": supported values: "a", "b"`, as a cause of `field`. */
export const unsupportedValue = (field: string, value: string, supported: string[]): StatusCause => ({
  reason: 'FieldValueNotSupported',
  field,
  message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${supported.map((one) => JSON.stringify(one)).join(', ')}`,
});

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
  new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});

/** A verb a subresource does not serve, e.g. `create is not supported on resources of kind "awsclusters.infrastructure.keymaster.dev"`. */
export const verbNotSupported = (verb: string, resource: GroupResource): ApiError =>
  new ApiError(
    405,
    'MethodNotAllowed',
    `${verb} is not supported on resources of kind "${qualifiedResource(resource)}"`,
    {
      group: groupDetail(resource.group),
      kind: resource.plural,
    },
  );

export const gone = (message: string): ApiError => new ApiError(410, 'Expired', message);

/** A path under a group version the server serves, naming nothing it serves. */
export const pathNotFound = (): ApiError =>
  new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});

export const unsupportedMediaType = (contentType: string): ApiError =>
  new ApiError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${contentType}`,
  );

/** A patch of a content type that is no patch type (or strategic merge on a custom resource). */
export const unsupportedPatchType = (): ApiError =>
  new ApiError(415, 'UnsupportedMediaType', '415: Unsupported Media Type', {});

/** What Accept asked for is not served at all (no JSON) ... */
export const notAcceptable = (): ApiError =>
  new ApiError(
    406,
    'NotAcceptable',
    '406: Not Acceptable\n\nAvailable representations: application/json, application/yaml, application/vnd.kubernetes.protobuf, application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch',
    {},
  );

/** ... or JSON `as=` something the server does not convert to. */
export const notAcceptableConversion = (): ApiError =>
  new ApiError(
    406,
    'NotAcceptable',
    'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
  );
