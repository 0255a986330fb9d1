import type { ServerResponse } from 'node:http';
import { PlainTextError, type ApiError } from './status.js';

/** Sends a JSON body; warnings go into `Warning: 299` headers as the apiserver sends them. */
export function sendJson(
  response: ServerResponse,
  code: number,
  body: unknown,
  options: { contentType?: string; warnings?: string[] } = {},
): void {
  const payload = JSON.stringify(body);
  const headers: Record<string, string | string[]> = {
    'Content-Type': options.contentType ?? 'application/json',
    'Content-Length': String(Buffer.byteLength(payload)),
    // kube-apiserver's WithCacheControl filter, on every answer that sets no caching of its own.
    'Cache-Control': 'no-cache, private',
  };
  if (options.warnings && options.warnings.length > 0) {
    headers.Warning = options.warnings.map((warning) => `299 - ${JSON.stringify(warning)}`);
  }
  response.writeHead(code, headers);
  response.end(payload);
}

export function sendError(response: ServerResponse, error: ApiError): void {
  if (response.headersSent) {
    response.end();
    return;
  }
  if (error instanceof PlainTextError) {
    const body = error.message;
    response.writeHead(error.code, {
      'Content-Type': 'text/plain; charset=utf-8',
      'X-Content-Type-Options': 'nosniff',
      'Content-Length': String(Buffer.byteLength(body)),
    });
    response.end(body);
    return;
  }
  sendJson(response, error.code, error.toStatus(), { warnings: error.warnings });
}
