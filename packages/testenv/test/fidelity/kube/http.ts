import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** One of the two API servers the corpus is sent to. */
export interface Target {
  readonly name: 'emulator' | 'real';
  readonly url: string;
  /** The CA to trust over HTTPS. */
  readonly ca: string | undefined;
}

export interface HttpRequest {
  method: string;
  path: string;
  token: string | undefined;
  headers: Record<string, string>;
  body: string | undefined;
  /** For watches: stop reading after this many events (the server's timeoutSeconds ends it otherwise). */
  maxEvents?: number;
}

export interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body as text; for watches, the events read, one JSON document each. */
  text: string;
  events?: unknown[];
}

/** The same User-Agent to both servers: it names the field manager of writes without `fieldManager`. */
export const USER_AGENT = 'fidelity/1.0 (linux/amd64) kubernetes/corpus';

/** Sends one request; a watch answer is read event by event until it ends or has `maxEvents`. */
export function send(target: Target, call: HttpRequest, timeoutMs = 30_000): Promise<HttpAnswer> {
  const url = new URL(call.path, target.url);
  const transport = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = transport(
      url,
      {
        method: call.method,
        ca: target.ca,
        timeout: timeoutMs,
        headers: {
          'user-agent': USER_AGENT,
          ...(call.token === undefined ? {} : { authorization: `Bearer ${call.token}` }),
          ...(call.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(call.body)) }),
          ...call.headers,
        },
      },
      (response) =>
        call.maxEvents === undefined ? readAll(response, resolve) : readEvents(response, call.maxEvents, resolve),
    );
    request.on('timeout', () => request.destroy(new Error(`${target.name}: ${call.method} ${call.path} timed out`)));
    request.on('error', reject);
    request.end(call.body);
  });
}

function readAll(response: IncomingMessage, resolve: (answer: HttpAnswer) => void): void {
  const chunks: Buffer[] = [];
  response.on('data', (chunk: Buffer) => chunks.push(chunk));
  response.on('end', () =>
    resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString() }),
  );
}

/** Watch streams are JSON documents one per line; a 2xx stream is read until `max` events or its end. */
function readEvents(response: IncomingMessage, max: number, resolve: (answer: HttpAnswer) => void): void {
  if ((response.statusCode ?? 0) >= 300) {
    readAll(response, resolve);
    return;
  }
  const events: unknown[] = [];
  let pending = '';
  let done = false;
  const finish = (): void => {
    if (done) return;
    done = true;
    response.destroy();
    resolve({ status: response.statusCode ?? 0, headers: response.headers, text: '', events });
  };
  response.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    let newline: number;
    while ((newline = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, newline).trim();
      pending = pending.slice(newline + 1);
      if (line) events.push(JSON.parse(line));
      if (events.length >= max) {
        finish();
        return;
      }
    }
  });
  response.on('end', finish);
  response.on('close', finish);
}
