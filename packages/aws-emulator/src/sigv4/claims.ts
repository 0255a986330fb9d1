/** What a SigV4-signed request claims: who signed it, when, for which scope, and over which headers. */
export interface SignatureClaims {
  readonly accessKeyId: string;
  /** `YYYYMMDD` from the credential scope. */
  readonly scopeDate: string;
  readonly region: string;
  readonly service: string;
  readonly signedHeaders: readonly string[];
  readonly signature: string;
  /** The signing time, `YYYYMMDDTHHMMSSZ`. */
  readonly amzDate: string;
  /** Set for presigned URLs: how long the signature stays valid, in seconds. */
  readonly expiresSeconds?: number;
  readonly sessionToken?: string;
}

export type ClaimsResult =
  | { readonly ok: true; readonly claims: SignatureClaims }
  | { readonly ok: false; readonly kind: 'missing' | 'incomplete'; readonly message: string };

const ALGORITHM = 'AWS4-HMAC-SHA256';
const AMZ_DATE = /^\d{8}T\d{6}Z$/;

/**
 * Reads the signature's claims from the Authorization header or, for presigned URLs, the X-Amz-*
 * query parameters. `header` returns a request header's value by lower-case name.
 */
export function readClaims(
  header: (name: string) => string | undefined,
  query: ReadonlyMap<string, string>,
): ClaimsResult {
  const authorization = header('authorization');
  if (authorization !== undefined) return fromAuthorization(authorization, header);
  if (query.has('X-Amz-Signature') || query.has('X-Amz-Credential')) return fromQuery(query);
  return { ok: false, kind: 'missing', message: 'Request is missing Authentication Token' };
}

function fromAuthorization(authorization: string, header: (name: string) => string | undefined): ClaimsResult {
  const space = authorization.indexOf(' ');
  if (space < 0 || authorization.slice(0, space) !== ALGORITHM) {
    return incomplete(`Unsupported authorization type; only ${ALGORITHM} is accepted.`);
  }
  const fields = new Map<string, string>();
  for (const part of authorization.slice(space + 1).split(',')) {
    const equals = part.indexOf('=');
    if (equals > 0) fields.set(part.slice(0, equals).trim(), part.slice(equals + 1).trim());
  }
  const missing = ['Credential', 'SignedHeaders', 'Signature'].filter((name) => !fields.get(name));
  if (missing.length > 0) {
    return incomplete(
      missing.map((name) => `Authorization header requires '${name}' parameter.`).join(' ') +
        ` Authorization=${authorization.split(' ')[0]!}`,
    );
  }
  const amzDate = header('x-amz-date') ?? fromHttpDate(header('date'));
  if (amzDate === undefined) {
    return incomplete("Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header.");
  }
  const token = header('x-amz-security-token');
  return withScope(fields.get('Credential')!, {
    signedHeaders: fields.get('SignedHeaders')!.split(';'),
    signature: fields.get('Signature')!,
    amzDate,
    ...(token === undefined ? {} : { sessionToken: token }),
  });
}

function fromQuery(query: ReadonlyMap<string, string>): ClaimsResult {
  if (query.get('X-Amz-Algorithm') !== ALGORITHM) return incomplete(`X-Amz-Algorithm must be ${ALGORITHM}.`);
  const required = ['X-Amz-Credential', 'X-Amz-Date', 'X-Amz-SignedHeaders', 'X-Amz-Signature', 'X-Amz-Expires'];
  const missing = required.filter((name) => !query.get(name));
  if (missing.length > 0) return incomplete(`The presigned URL lacks ${missing.join(', ')}.`);
  const expires = Number(query.get('X-Amz-Expires'));
  if (!Number.isInteger(expires) || expires < 1 || expires > 604800) {
    return incomplete('X-Amz-Expires must be an integer from 1 to 604800 seconds.');
  }
  const token = query.get('X-Amz-Security-Token');
  return withScope(query.get('X-Amz-Credential')!, {
    signedHeaders: query.get('X-Amz-SignedHeaders')!.split(';'),
    signature: query.get('X-Amz-Signature')!,
    amzDate: query.get('X-Amz-Date')!,
    expiresSeconds: expires,
    ...(token === undefined ? {} : { sessionToken: token }),
  });
}

type Rest = Omit<SignatureClaims, 'accessKeyId' | 'scopeDate' | 'region' | 'service'>;

function withScope(credential: string, rest: Rest): ClaimsResult {
  const parts = credential.split('/');
  if (parts.length !== 5 || parts[4] !== 'aws4_request' || parts.some((part) => part === '')) {
    return incomplete(
      `Credential must have the form <access key ID>/<YYYYMMDD>/<region>/<service>/aws4_request; got '${credential}'.`,
    );
  }
  if (!AMZ_DATE.test(rest.amzDate)) return incomplete(`X-Amz-Date must have the form YYYYMMDDTHHMMSSZ.`);
  const [accessKeyId, scopeDate, region, service] = parts as [string, string, string, string];
  return { ok: true, claims: { accessKeyId, scopeDate, region, service, ...rest } };
}

function fromHttpDate(date: string | undefined): string | undefined {
  if (date === undefined) return undefined;
  const time = Date.parse(date);
  return Number.isNaN(time) ? undefined : toAmzDate(time);
}

export function toAmzDate(time: number): string {
  return new Date(time)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

export function amzDateToMs(amzDate: string): number {
  const d = amzDate;
  return Date.UTC(
    +d.slice(0, 4),
    +d.slice(4, 6) - 1,
    +d.slice(6, 8),
    +d.slice(9, 11),
    +d.slice(11, 13),
    +d.slice(13, 15),
  );
}

function incomplete(message: string): ClaimsResult {
  return { ok: false, kind: 'incomplete', message };
}
