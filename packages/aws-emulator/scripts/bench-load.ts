import { createHash, createHmac } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';

/**
 * The load generator of the benchmark, in a process of its own so the emulator keeps its core to itself.
 * `signed` sends SigV4-signed query calls as fast as `concurrency` keep-alive connections allow, over
 * raw sockets so the client costs little: the request is signed anew every second (the emulator still
 * verifies every request in full). `sdk` sends GetCallerIdentity through the real STS client, whose own
 * cost then bounds the figure.
 */
export interface LoadOptions {
  readonly url: string;
  readonly mode: 'signed' | 'sdk';
  readonly body: string;
  readonly keys: { accessKeyId: string; secretAccessKey: string };
  readonly seconds: number;
  readonly concurrency: number;
}

const options = JSON.parse(process.argv[2]!) as LoadOptions;
const { hostname, port } = new URL(options.url);

function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac('sha256', key).update(data).digest();
}

/** SigV4 for one query-protocol POST, the way botocore signs it (host, content-type, x-amz-date). */
function signedHeaders(body: string): Record<string, string> {
  const amzDate = new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  const date = amzDate.slice(0, 8);
  const host = `${hostname}:${port}`;
  const contentType = 'application/x-www-form-urlencoded; charset=utf-8';
  const names = 'content-type;host;x-amz-date';
  const canonical = `POST\n/\n\ncontent-type:${contentType}\nhost:${host}\nx-amz-date:${amzDate}\n\n${names}\n${createHash('sha256').update(body).digest('hex')}`;
  const scope = `${date}/us-west-2/sts/aws4_request`;
  const toSign = `AWS4-HMAC-SHA256\n${amzDate}\n${scope}\n${createHash('sha256').update(canonical).digest('hex')}`;
  const key = hmac(hmac(hmac(hmac(`AWS4${options.keys.secretAccessKey}`, date), 'us-west-2'), 'sts'), 'aws4_request');
  return {
    'content-type': contentType,
    host,
    'x-amz-date': amzDate,
    authorization: `AWS4-HMAC-SHA256 Credential=${options.keys.accessKeyId}/${scope}, SignedHeaders=${names}, Signature=${hmac(key, toSign).toString('hex')}`,
  };
}

let signed = { at: 0, bytes: Buffer.alloc(0) };

/** The request's bytes, signed again once a second. */
function requestBytes(): Buffer {
  const now = Date.now();
  if (now - signed.at >= 1000) {
    const headers = Object.entries({
      ...signedHeaders(options.body),
      'content-length': String(Buffer.byteLength(options.body)),
    })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    signed = { at: now, bytes: Buffer.from(`POST / HTTP/1.1\r\n${headers}\r\n${options.body}`) };
  }
  return signed.bytes;
}

/** One keep-alive connection that sends a request, reads the whole response, and reports its status. */
function connection(): () => Promise<number> {
  const socket: Socket = connect(Number(port), hostname);
  socket.setNoDelay(true);
  let buffered = Buffer.alloc(0);
  let waiting: ((status: number) => void) | undefined;
  socket.on('data', (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    const headerEnd = buffered.indexOf('\r\n\r\n');
    if (headerEnd < 0) return;
    const head = buffered.subarray(0, headerEnd).toString('latin1');
    const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
    if (buffered.length < headerEnd + 4 + length) return;
    buffered = buffered.subarray(headerEnd + 4 + length);
    const resolve = waiting!;
    waiting = undefined;
    resolve(Number(head.slice(9, 12)));
  });
  return () =>
    new Promise((resolve) => {
      waiting = resolve;
      socket.write(requestBytes());
    });
}

async function run(): Promise<{ ok: number; failed: number }> {
  const sts = new STSClient({ endpoint: options.url, region: 'us-west-2', credentials: options.keys });
  const send = () =>
    options.mode === 'signed'
      ? connection()
      : () => sts.send(new GetCallerIdentityCommand({})).then((out) => out.$metadata.httpStatusCode ?? 0);
  const deadline = Date.now() + options.seconds * 1000;
  let ok = 0;
  let failed = 0;
  const loop = async () => {
    const next = send();
    while (Date.now() < deadline) {
      if ((await next()) === 200) ok++;
      else failed++;
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, loop));
  return { ok, failed };
}

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
process.send!(await run(), () => process.exit(0));
