import { request } from 'node:https';

export interface Response {
  status: number;
  body: string;
}

/** A minimal HTTPS client for the set-up requests (CRDs, namespaces, readiness) as the admin. */
export class AdminClient {
  constructor(
    private readonly url: string,
    private readonly ca: string,
    private readonly token: string,
  ) {}

  send(method: string, path: string, body?: unknown): Promise<Response> {
    return new Promise((resolve, reject) => {
      const req = request(
        new URL(path, this.url),
        {
          method,
          ca: this.ca,
          headers: {
            authorization: `Bearer ${this.token}`,
            accept: 'application/json',
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          timeout: 10_000,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${method} ${path} timed out`)));
      req.on('error', reject);
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });
  }
}
