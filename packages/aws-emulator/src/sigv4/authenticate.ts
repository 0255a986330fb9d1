import type { Clock } from '../clock.js';
import type { Credential, Directory } from '../world/directory.js';
import { canonicalRequest, sha256Hex } from './canonical.js';
import { amzDateToMs, readClaims, toAmzDate, type SignatureClaims } from './claims.js';
import { constantTimeEqual, expectedSignature } from './signature.js';

/** The parts of an HTTP request that SigV4 covers. */
export interface SignedRequest {
  readonly method: string;
  readonly rawPath: string;
  /** Decoded query parameters in arrival order. */
  readonly query: readonly (readonly [string, string])[];
  readonly queryMap: ReadonlyMap<string, string>;
  /** A header's values by lower-case name, in arrival order (empty when absent). */
  readonly headerValues: (name: string) => readonly string[];
  readonly body: Buffer;
}

/** Why a request was refused before any service saw it; each protocol turns a kind into its own error code. */
export type AuthFailureKind =
  'missing' | 'incomplete' | 'unknownKey' | 'invalidToken' | 'expiredToken' | 'signature' | 'signatureExpired';

export interface AuthFailure {
  readonly kind: AuthFailureKind;
  readonly message: string;
  readonly accessKeyId?: string;
  /** The owner of the access key, when the key is known (the call log records it). */
  readonly credential?: Credential;
}

export type Authentication =
  | { readonly ok: true; readonly credential: Credential; readonly claims: SignatureClaims }
  | { readonly ok: false; readonly failure: AuthFailure };

export interface AuthenticateOptions {
  /** The signing name the request must be scoped to (`sts`, `ec2`, `tagging`). */
  readonly service: string;
  /** How far the signing time may stray from the wall clock, in seconds. */
  readonly maxSkewSeconds: number;
  /** Decides session expiry. */
  readonly clock: Clock;
  /** Signing times are compared with this (the real time clients sign with), not with `clock`. */
  readonly wallClock?: () => number;
}

const INVALID_TOKEN = 'The security token included in the request is invalid.';

/** Verifies a request's SigV4 signature (Authorization header or presigned query) and finds its credential. */
export function authenticate(
  request: SignedRequest,
  directory: Directory,
  options: AuthenticateOptions,
): Authentication {
  const header = (name: string) => {
    const values = request.headerValues(name);
    return values.length === 0 ? undefined : values.join(',');
  };
  const read = readClaims(header, request.queryMap);
  if (!read.ok) return refuse({ kind: read.kind, message: read.message });
  const { claims } = read;
  const { accessKeyId } = claims;
  const credential = directory.credential(accessKeyId);
  if (credential === undefined) return refuse({ kind: 'unknownKey', message: INVALID_TOKEN, accessKeyId });
  const known = { accessKeyId, credential };
  if (!tokenMatches(claims.sessionToken, credential.sessionToken)) {
    return refuse({ kind: 'invalidToken', message: INVALID_TOKEN, ...known });
  }
  const { principal } = credential;
  if (principal.kind === 'assumed-role' && options.clock.nowMs() >= principal.expiresAtMs) {
    return refuse({ kind: 'expiredToken', message: 'The security token included in the request is expired', ...known });
  }
  const scopeProblem = checkScope(claims, options.service, request);
  if (scopeProblem !== undefined) return refuse({ kind: 'signature', message: scopeProblem, ...known });
  const timeProblem = checkTime(claims, options);
  if (timeProblem !== undefined) return refuse({ kind: 'signatureExpired', message: timeProblem, ...known });

  const payloadHash = sha256Hex(request.body);
  const declaredHash = header('x-amz-content-sha256');
  const canonical = canonicalRequest({
    method: request.method,
    rawPath: request.rawPath,
    query: claims.expiresSeconds === undefined ? request.query : request.query.filter(([k]) => k !== 'X-Amz-Signature'),
    headerValues: request.headerValues,
    signedHeaders: claims.signedHeaders,
    payloadHash: declaredHash === 'UNSIGNED-PAYLOAD' ? declaredHash : payloadHash,
  });
  const bodyIntact = declaredHash === undefined || declaredHash === 'UNSIGNED-PAYLOAD' || declaredHash === payloadHash;
  if (
    !bodyIntact ||
    !constantTimeEqual(expectedSignature(credential.secretAccessKey, claims, canonical), claims.signature)
  ) {
    return refuse({
      kind: 'signature',
      message:
        'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.',
      ...known,
    });
  }
  return { ok: true, credential, claims };
}

function checkScope(claims: SignatureClaims, service: string, request: SignedRequest): string | undefined {
  if (!claims.signedHeaders.includes('host')) {
    return "'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization.";
  }
  if (request.headerValues('host').length === 0) return "The signed header 'host' is missing from the request.";
  if (claims.scopeDate !== claims.amzDate.slice(0, 8)) {
    return `Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '${claims.scopeDate}' != '${claims.amzDate.slice(0, 8)}', from '${claims.amzDate}'.`;
  }
  if (claims.service !== service) return `Credential should be scoped to correct service: '${service}'. `;
  return undefined;
}

function checkTime(claims: SignatureClaims, options: AuthenticateOptions): string | undefined {
  const now = (options.wallClock ?? Date.now)();
  const signedAt = amzDateToMs(claims.amzDate);
  const skewMs = options.maxSkewSeconds * 1000;
  if (signedAt > now + skewMs) {
    return `Signature not yet current: ${claims.amzDate} is still later than ${toAmzDate(now + skewMs)} (${toAmzDate(now)} + ${options.maxSkewSeconds / 60} min.)`;
  }
  if (claims.expiresSeconds !== undefined) {
    const expiresAt = signedAt + claims.expiresSeconds * 1000;
    return now > expiresAt
      ? `Signature expired: ${toAmzDate(expiresAt)} is now earlier than ${toAmzDate(now)} (presigned URL valid for ${claims.expiresSeconds} s)`
      : undefined;
  }
  if (signedAt < now - skewMs) {
    return `Signature expired: ${claims.amzDate} is now earlier than ${toAmzDate(now - skewMs)} (${toAmzDate(now)} - ${options.maxSkewSeconds / 60} min.)`;
  }
  return undefined;
}

/** Session keys need their own token; long-term keys must come without one. */
function tokenMatches(given: string | undefined, issued: string | undefined): boolean {
  if (given === undefined || issued === undefined) return given === issued;
  return constantTimeEqual(issued, given);
}

function refuse(failure: AuthFailure): Authentication {
  return { ok: false, failure };
}
