import type { ServerResponse } from 'node:http';

/** The reasons of metav1.Status this API answers with, and their HTTP codes. */
const CODES = {
  Unauthorized: 401,
  Forbidden: 403,
  NotFound: 404,
  MethodNotAllowed: 405,
  TooManyRequests: 429,
  InternalError: 500,
  ServiceUnavailable: 503,
} as const;

export type StatusReason = keyof typeof CODES;

export function sendJson(
  response: ServerResponse,
  code: number,
  body: object,
  headers: Record<string, string> = {},
): void {
  response.writeHead(code, { 'Content-Type': 'application/json', ...headers }).end(JSON.stringify(body));
}

/** A failure as the API server writes one (metav1.Status), so that kubectl and client-node tell it as theirs. */
export function sendStatus(
  response: ServerResponse,
  reason: StatusReason,
  message: string,
  details?: { name?: string; group?: string; kind?: string; retryAfterSeconds?: number },
): void {
  const code = CODES[reason];
  sendJson(
    response,
    code,
    {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message,
      reason,
      code,
      ...(details ? { details } : {}),
    },
    details?.retryAfterSeconds ? { 'Retry-After': String(details.retryAfterSeconds) } : {},
  );
}
