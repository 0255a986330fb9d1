import { createHash } from 'node:crypto';
import { get as httpGet, type IncomingMessage } from 'node:http';
import { get as httpsGet } from 'node:https';
import type { DetailedPeerCertificate, TLSSocket } from 'node:tls';
import { rootCertificates } from 'node:tls';

const TIMEOUT_MS = 5000;
const MAX_BYTES = 1024 * 1024;

export interface FetchOptions {
  /** PEM certificates to trust besides the system's. */
  readonly ca?: string;
  /** SHA-1 thumbprints (lower-case hex) one of which the top certificate of the server's chain must have; none: unchecked. */
  readonly thumbprints?: readonly string[];
}

/** Why keys could not be fetched (AWS answers every such case alike; the emulator logs nothing). */
export class FetchFailure extends Error {}

/**
 * The SHA-1 of the top certificate of the chain the TLS connection verified (the root, possibly from
 * `ca`, or a self-signed server certificate), as IAM's thumbprints name it.
 */
function topThumbprint(socket: TLSSocket): string | undefined {
  // Node answers {} when the peer sent no certificate, and a chain may end early: its types say neither.
  let certificate: Partial<DetailedPeerCertificate> = socket.getPeerCertificate(true);
  if (certificate.raw === undefined) return undefined;
  // The root's issuerCertificate is itself.
  while (certificate.issuerCertificate?.raw !== undefined && certificate.issuerCertificate !== certificate) {
    certificate = certificate.issuerCertificate;
  }
  return createHash('sha1').update(certificate.raw!).digest('hex');
}

/** GETs a JSON document over HTTP(S), trusting `ca` and checking the thumbprints over HTTPS. */
export function fetchJson(url: string, options: FetchOptions = {}): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const https = url.startsWith('https:');
    const handle = (response: IncomingMessage) => {
      const thumbprints = options.thumbprints ?? [];
      if (https && thumbprints.length > 0) {
        const thumbprint = topThumbprint(response.socket as TLSSocket);
        if (thumbprint === undefined || !thumbprints.includes(thumbprint)) {
          response.destroy();
          reject(new FetchFailure(`the certificate of ${url} matches no thumbprint`));
          return;
        }
      }
      if (response.statusCode !== 200) {
        response.resume();
        reject(new FetchFailure(`${url} answered ${String(response.statusCode)}`));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_BYTES) response.destroy(new FetchFailure(`${url} sent more than ${MAX_BYTES} bytes`));
        else chunks.push(chunk);
      });
      response.on('error', (error) => reject(new FetchFailure(error.message)));
      response.on('end', () => {
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        } catch {
          reject(new FetchFailure(`${url} sent no JSON`));
        }
      });
    };
    const request = https
      ? httpsGet(url, { ...(options.ca ? { ca: [...rootCertificates, options.ca] } : {}), timeout: TIMEOUT_MS }, handle)
      : httpGet(url, { timeout: TIMEOUT_MS }, handle);
    request.on('timeout', () => request.destroy(new FetchFailure(`${url} did not answer within ${TIMEOUT_MS} ms`)));
    request.on('error', (error) => reject(error instanceof FetchFailure ? error : new FetchFailure(error.message)));
  });
}
