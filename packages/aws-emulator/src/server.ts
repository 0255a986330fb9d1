import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { handleAdmin } from './admin/routes.js';
import { handleApiCall, type Emulation } from './dispatch.js';
import { parseForm } from './protocols/query-params.js';
import type { SignedRequest } from './sigv4/authenticate.js';

const ADMIN_PREFIX = '/_emulator/';
const MAX_BODY_BYTES = 10 * 1024 * 1024;

/** The HTTP front: `/_emulator/...` goes to the admin routes, everything else to the AWS services. */
export function createEmulatorServer(emulation: Emulation): Server {
  const server = createServer((request, response) => {
    serve(emulation, request, response).catch((error: unknown) => {
      process.stderr.write(`aws-emulator: ${(error as Error).stack ?? String(error)}\n`);
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain' });
      response.end('internal error in the AWS emulator\n');
    });
  });
  // Idle connections stay a minute, as the kube-emulator's: Node's default, 5 s, closed sockets that a
  // busy client was about to reuse (ECONNRESET, `fetch failed`) under load. Responses say so
  // (`Keep-Alive: timeout=60`), and clients that read it close theirs first.
  server.keepAliveTimeout = 60_000;
  return server;
}

async function serve(emulation: Emulation, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const url = request.url ?? '/';
  const question = url.indexOf('?');
  const rawPath = question < 0 ? url : url.slice(0, question);
  const rawQuery = question < 0 ? '' : url.slice(question + 1);
  const body = await readBody(request);
  if (body === undefined) {
    response.writeHead(413, { 'content-type': 'text/plain' }).end('request body too large\n');
    return;
  }
  if (rawPath.startsWith(ADMIN_PREFIX)) {
    let parsed: unknown;
    try {
      parsed = body.length === 0 ? undefined : JSON.parse(body.toString('utf8'));
    } catch {
      sendJson(response, 400, {
        error: { code: 'ERR_KEYMASTER_AWS_EMULATOR_BAD_REQUEST', message: 'the body is not JSON' },
      });
      return;
    }
    const { status, body: answer } = handleAdmin(
      emulation,
      request.method ?? 'GET',
      rawPath.slice(ADMIN_PREFIX.length),
      new URLSearchParams(rawQuery),
      parsed,
    );
    sendJson(response, status, answer);
    return;
  }
  const query = parseForm(rawQuery);
  const signed: SignedRequest = {
    method: request.method ?? 'GET',
    rawPath,
    query,
    queryMap: new Map(query),
    headerValues: headerIndex(request.rawHeaders),
    body,
  };
  const answer = await handleApiCall(emulation, signed);
  response.writeHead(answer.status, {
    'content-type': answer.contentType,
    'content-length': Buffer.byteLength(answer.body),
    'x-amzn-requestid': answer.requestId,
  });
  response.end(answer.body);
}

/** Header values by lower-case name, from the raw headers so repeated headers keep their order. */
function headerIndex(rawHeaders: readonly string[]): (name: string) => readonly string[] {
  const index = new Map<string, string[]>();
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    const values = index.get(name);
    if (values === undefined) index.set(name, [rawHeaders[i + 1]!]);
    else values.push(rawHeaders[i + 1]!);
  }
  return (name) => index.get(name) ?? [];
}

async function readBody(request: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body ?? null);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}
