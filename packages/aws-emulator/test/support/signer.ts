import { createHash, createHmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import type { Keys } from './clients.js';
import { REGION } from './world.js';

type SourceData = string | ArrayBuffer | ArrayBufferView;

function bytes(data: SourceData): string | Buffer {
  if (typeof data === 'string') return data;
  return ArrayBuffer.isView(data) ? Buffer.from(data.buffer, data.byteOffset, data.byteLength) : Buffer.from(data);
}

/** The hash SignatureV4 asks for, on node:crypto (HMAC when given a secret). */
class Sha256 {
  readonly #hash: ReturnType<typeof createHash> | ReturnType<typeof createHmac>;

  constructor(secret?: SourceData) {
    this.#hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(secret));
  }

  update(data: SourceData): void {
    this.#hash.update(bytes(data));
  }

  digest(): Promise<Uint8Array> {
    return Promise.resolve(this.#hash.digest());
  }
}

/** Smithy's SigV4 signer (the one inside the JS SDK), for requests the SDK would not make on its own. */
export function signer(keys: Keys, service = 'sts', region = REGION): SignatureV4 {
  return new SignatureV4({ credentials: keys, service, region, sha256: Sha256 });
}

/** A presigned `GET /?Action=GetCallerIdentity` URL, as EKS-style tokens carry. */
export async function presignedCallerIdentity(
  url: string,
  keys: Keys,
  options: { expiresIn: number; signingDate?: Date },
) {
  const { hostname, port } = new URL(url);
  const request = await signer(keys).presign(
    {
      method: 'GET',
      protocol: 'http:',
      hostname,
      port: Number(port),
      path: '/',
      query: { Action: 'GetCallerIdentity', Version: '2011-06-15' },
      headers: { host: `${hostname}:${port}` },
    },
    options,
  );
  const query = Object.entries(request.query ?? {})
    .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`)
    .join('&');
  return `${url}/?${query}`;
}
