import { AwsCredentialError, AwsUnreachableError, type CredentialAction, type LinkName } from './errors.js';

/**
 * Why an AWS call made no answer: the network (DNS, connection, TLS, time-out) never let the request
 * reach AWS, as opposed to AWS answering that it refuses the credentials. The two need opposite fixes.
 */

/** Node's socket and DNS error codes: the request never reached an AWS endpoint. */
const NETWORK_CODES = new Set([
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'EPROTO',
]);
/** TLS failures: a certificate not trusted or not for this host (a proxy that intercepts, a wrong endpoint). */
const TLS_CODE = /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)/;
/** The SDK's names for a request that got no answer in time. */
const TIMEOUT_NAMES = new Set(['TimeoutError', 'RequestTimeout', 'RequestTimeoutException']);

interface NetworkError extends Error {
  code?: string;
  hostname?: string;
  address?: string;
  port?: number;
  errors?: unknown[];
  $metadata?: { httpStatusCode?: number };
}

/** Node reports a connection refused on every address of a host as an AggregateError: its first member tells. */
const innermost = (error: NetworkError): NetworkError =>
  Array.isArray(error.errors) && error.errors[0] instanceof Error ? error.errors[0] : error;

/** Whether the call failed without an answer from AWS, for a reason of the network between. */
export function isNetworkFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const failure = error as NetworkError;
  if (failure.$metadata?.httpStatusCode !== undefined) return false;
  const code = failure.code ?? innermost(failure).code ?? '';
  return NETWORK_CODES.has(code) || TLS_CODE.test(code) || TIMEOUT_NAMES.has(failure.name);
}

/** The host or address the failed connection was for, when the error says. */
export function failedEndpoint(error: unknown): string | undefined {
  const failure = innermost(error as NetworkError);
  if (failure.hostname) return failure.hostname;
  if (failure.address) return failure.port === undefined ? failure.address : `${failure.address}:${failure.port}`;
  return undefined;
}

/** A network error's words: Node leaves an AggregateError's own message empty. */
export function networkMessage(error: unknown): string {
  const failure = error as NetworkError;
  const message = failure.message || innermost(failure).message;
  const code = failure.code ?? innermost(failure).code;
  return message || code || failure.name;
}

/** The STS endpoint a client of `region` calls, for messages when the error does not name it. */
export const stsEndpoint = (region: string, override?: string): string =>
  override ?? process.env['AWS_ENDPOINT_URL_STS'] ?? process.env['AWS_ENDPOINT_URL'] ?? `sts.${region}.amazonaws.com`;

/**
 * The error for a failed STS call made to obtain or check a link's credentials: unreachable when the
 * network failed, else AWS's refusal with its code and `refusedHint`.
 */
export function stsCallError(
  link: LinkName,
  action: CredentialAction,
  error: unknown,
  endpoint: string,
  refusedHint: string,
): AwsUnreachableError | AwsCredentialError {
  if (isNetworkFailure(error))
    return new AwsUnreachableError(link, action, failedEndpoint(error) ?? endpoint, networkMessage(error), error);
  const { name, message } = error as Error;
  return new AwsCredentialError(link, action, name, message, refusedHint);
}
