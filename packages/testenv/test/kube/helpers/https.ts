import { get } from 'node:https';
import type { RealKube } from '../../../src/index.js';

/** GETs a path of the real API server, trusting its CA, with a bearer token; the status and parsed body. */
export function getJson(kube: RealKube, path: string, token: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    get(new URL(path, kube.url), { ca: kube.caCertificate, headers: { authorization: `Bearer ${token}` } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) as unknown }),
      );
    }).on('error', reject);
  });
}
