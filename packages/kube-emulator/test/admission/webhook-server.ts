import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { selfSignedCertificate } from '../../src/auth/certificate.js';

export interface ReviewedObject {
  metadata: { name?: string; namespace?: string; labels?: Record<string, string>; uid?: string };
  spec?: Record<string, unknown>;
}

export interface Review {
  request: {
    uid: string;
    operation: string;
    name: string;
    namespace?: string;
    kind: { group: string; version: string; kind: string };
    resource: { group: string; version: string; resource: string };
    subResource?: string;
    userInfo: { username: string; groups: string[] };
    object: ReviewedObject | null;
    oldObject: ReviewedObject | null;
    dryRun: boolean;
    options: Record<string, unknown>;
  };
}

/** What a test's webhook answers: allowed, or a Status; a JSON patch and warnings. */
export interface Answer {
  allowed: boolean;
  status?: Record<string, unknown>;
  patch?: unknown[];
  warnings?: string[];
  /** Wait this long before answering. */
  delayMs?: number;
  /** Answer another uid than the request's. */
  wrongUid?: boolean;
}

/** An HTTPS server that answers AdmissionReviews by path, and remembers what it was sent. */
export class WebhookServer {
  readonly reviews: { path: string; review: Review }[] = [];
  private readonly handlers = new Map<string, (review: Review) => Answer>();
  private server!: Server;
  readonly certificate = selfSignedCertificate('127.0.0.1');
  url = '';

  get caBundle(): string {
    return Buffer.from(this.certificate.cert).toString('base64');
  }

  on(path: string, handler: (review: Review) => Answer): this {
    this.handlers.set(path, handler);
    return this;
  }

  sent(path: string): Review[] {
    return this.reviews.filter((entry) => entry.path === path).map((entry) => entry.review);
  }

  async start(): Promise<void> {
    this.server = createServer({ cert: this.certificate.cert, key: this.certificate.key }, (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const url = new URL(request.url ?? '/', 'https://webhook');
        const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Review;
        this.reviews.push({ path: url.pathname, review });
        const answer = this.handlers.get(url.pathname)?.(review) ?? { allowed: true };
        const body = JSON.stringify({
          apiVersion: 'admission.k8s.io/v1',
          kind: 'AdmissionReview',
          response: {
            uid: answer.wrongUid ? 'another' : review.request.uid,
            allowed: answer.allowed,
            ...(answer.status ? { status: answer.status } : {}),
            ...(answer.warnings ? { warnings: answer.warnings } : {}),
            ...(answer.patch
              ? { patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(answer.patch)).toString('base64') }
              : {}),
          },
        });
        setTimeout(() => {
          if (!response.destroyed) response.writeHead(200, { 'Content-Type': 'application/json' }).end(body);
        }, answer.delayMs ?? 0);
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `https://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
