import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';
import { isObject, objectAt, text, type JsonObject } from '../util/json.js';

/** A webhook that could not be called or answered nonsense: failurePolicy decides what happens. */
export class WebhookCallError extends Error {}

/** Where kube-apiserver posts: `url`, or the Service's DNS name (resolvable only where cluster DNS is). */
export function webhookUrl(clientConfig: JsonObject, timeoutSeconds: number): string {
  const service = objectAt(clientConfig, 'service');
  const base = service
    ? `https://${text(service.name)}.${text(service.namespace)}.svc:${Number(service.port ?? 443)}${text(service.path ?? '')}`
    : text(clientConfig.url);
  const url = new URL(base);
  url.searchParams.set('timeout', `${timeoutSeconds}s`);
  return url.toString();
}

const UNKNOWN_AUTHORITY = 'tls: failed to verify certificate: x509: certificate signed by unknown authority';

/** Node's network errors in the words of Go's net/http, as kube-apiserver reports them. */
export function goNetworkError(error: NodeJS.ErrnoException & { address?: string; port?: number }, url: URL): string {
  // The address dialed (a name resolved to its IP), as Go names it.
  const host = error.address ?? url.hostname;
  const address = `${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${error.port ?? (url.port || (url.protocol === 'https:' ? '443' : '80'))}`;
  const words: Record<string, string> = {
    ECONNREFUSED: `dial tcp ${address}: connect: connection refused`,
    ENOTFOUND: `dial tcp: lookup ${url.hostname}: no such host`,
    UNABLE_TO_VERIFY_LEAF_SIGNATURE: UNKNOWN_AUTHORITY,
    SELF_SIGNED_CERT_IN_CHAIN: UNKNOWN_AUTHORITY,
    DEPTH_ZERO_SELF_SIGNED_CERT: UNKNOWN_AUTHORITY,
    ERR_TLS_CERT_ALTNAME_INVALID: `tls: failed to verify certificate: x509: certificate is valid for other names, not ${url.hostname}`,
  };
  return words[error.code ?? ''] ?? error.message;
}

/** Posts an AdmissionReview and returns the review answered; throws WebhookCallError on any failure. */
export function postReview(
  url: string,
  caBundle: string | undefined,
  timeoutSeconds: number,
  review: JsonObject,
): Promise<JsonObject> {
  const target = new URL(url);
  const body = JSON.stringify(review);
  const failed = (why: string) => new WebhookCallError(`failed to call webhook: Post "${url}": ${why}`);
  return new Promise((resolve, reject) => {
    const options = {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json',
        'Content-Length': Buffer.byteLength(body),
      },
      ...(caBundle ? { ca: Buffer.from(caBundle, 'base64').toString('utf8') } : {}),
    };
    const call = (target.protocol === 'https:' ? httpsRequest : httpRequest)(target, options, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', (error) => reject(failed(error.message)));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if ((response.statusCode ?? 0) < 200 || (response.statusCode ?? 0) >= 300) {
          reject(
            failed(
              `the server responded with the status code ${response.statusCode ?? 0} but did not return more information`,
            ),
          );
          return;
        }
        try {
          const answer = JSON.parse(text) as unknown;
          if (!isObject(answer)) throw new Error('not an object');
          resolve(answer);
        } catch {
          reject(new WebhookCallError(`received invalid webhook response: ${text.slice(0, 200)}`));
        }
      });
    });
    // timeoutSeconds bounds the whole call, as the context kube-apiserver gives it.
    const deadline = setTimeout(
      () => call.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })),
      timeoutSeconds * 1000,
    );
    call.on('close', () => clearTimeout(deadline));
    call.on('error', (error: NodeJS.ErrnoException) =>
      reject(failed(error.code === 'ETIMEDOUT' ? 'context deadline exceeded' : goNetworkError(error, target))),
    );
    call.end(body);
  });
}
