import type { ServerResponse } from 'node:http';

/** The reasons of metav1.Status this API answers with, and their HTTP codes. */
const CODES = {
  Unauthorized: 401,
  Forbidden: 403,
  NotFound: 404,
  MethodNotAllowed: 405,
  TooManyRequests: 429,
  InternalError: 500,
} as const;

export type StatusReason = keyof typeof CODES;

/** What a request is answered with. */
export interface Reply {
  code: number;
  body: object;
  headers?: Record<string, string>;
}

export const ok = (body: object): Reply => ({ code: 200, body });

/** A failure as the API server writes one (metav1.Status), so that kubectl and client-node tell it as theirs. */
export function failure(
  reason: StatusReason,
  message: string,
  details?: { name?: string; group?: string; kind?: string; retryAfterSeconds?: number },
): Reply {
  const code = CODES[reason];
  return {
    code,
    body: {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message,
      reason,
      code,
      ...(details ? { details } : {}),
    },
    ...(details?.retryAfterSeconds ? { headers: { 'Retry-After': String(details.retryAfterSeconds) } } : {}),
  };
}

export function send(response: ServerResponse, { code, body, headers = {} }: Reply): void {
  response.writeHead(code, { 'Content-Type': 'application/json', ...headers }).end(JSON.stringify(body));
}
