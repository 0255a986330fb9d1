import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { defaultAWSCluster, validateAWSCluster } from './awscluster.js';
import { readCertificate, watchCertificate, type ServingCertificate } from './certificate.js';
import type { WebhookContext } from './context.js';
import { validateCredentialsRequest } from './credentials-request.js';
import { validateIdentity } from './identities.js';
import { validateTagPolicy } from './tag-policy.js';
import { reviewResponse, type AdmissionRequest, type Verdict } from './review.js';
import { defaultNamespace, validateNamespace } from './tenancy.js';

/** The webhooks' paths, named as controller-runtime names them (`/validate-<group>-<version>-<kind>`). */
export const WEBHOOK_PATHS = {
  mutateAWSCluster: '/mutate-infrastructure-keymaster-dev-v1beta1-awscluster',
  validateAWSCluster: '/validate-infrastructure-keymaster-dev-v1beta1-awscluster',
  validateIdentity: '/validate-infrastructure-keymaster-dev-v1beta1-identity',
  validateCredentialsRequest: '/validate-infrastructure-keymaster-dev-v1beta1-awscredentialsrequest',
  validateTagPolicy: '/validate-infrastructure-keymaster-dev-v1beta1-awstagpolicy',
  mutateNamespace: '/mutate--v1-namespace',
  validateNamespace: '/validate--v1-namespace',
} as const;

type Handler = (request: AdmissionRequest, context: WebhookContext) => Verdict | Promise<Verdict>;

const HANDLERS = new Map<string, Handler>([
  [WEBHOOK_PATHS.mutateAWSCluster, defaultAWSCluster],
  [WEBHOOK_PATHS.validateAWSCluster, validateAWSCluster],
  [WEBHOOK_PATHS.validateIdentity, validateIdentity],
  [WEBHOOK_PATHS.validateCredentialsRequest, validateCredentialsRequest],
  [WEBHOOK_PATHS.validateTagPolicy, validateTagPolicy],
  [WEBHOOK_PATHS.mutateNamespace, defaultNamespace],
  [WEBHOOK_PATHS.validateNamespace, validateNamespace],
]);

/** kube-apiserver sends at most 3 MiB objects; a review holds two. */
const MAX_BODY = 8 * 1024 * 1024;

function readJson(request: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) request.destroy(new Error('request body too large'));
      else chunks.push(chunk);
    });
    request.on('error', reject);
    request.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  });
}

function answer(context: WebhookContext, api: RequestListener | undefined) {
  return async (request: IncomingMessage, response: ServerResponse) => {
    const path = new URL(request.url ?? '/', 'https://webhook').pathname;
    if (api && (path === '/apis' || path.startsWith('/apis/'))) {
      api(request, response);
      return;
    }
    const handler = HANDLERS.get(path);
    if (!handler || request.method !== 'POST') {
      response.writeHead(404).end();
      return;
    }
    let review: { request?: AdmissionRequest };
    try {
      review = (await readJson(request)) as { request?: AdmissionRequest };
      if (!review.request?.uid) throw new Error('not an AdmissionReview: request.uid is missing');
    } catch (error) {
      response.writeHead(400, { 'Content-Type': 'text/plain' }).end(`bad AdmissionReview: ${(error as Error).message}`);
      return;
    }
    const admission = review.request;
    let verdict: Verdict;
    try {
      verdict = await handler(admission, context);
    } catch (error) {
      // As controller-runtime's Errored: a refusal with code 500 (the caches could not answer).
      context.logger.error('admission webhook failed', { path, error: (error as Error).message });
      verdict = { allowed: false, code: 500, reason: 'InternalError', message: (error as Error).message };
    }
    context.logger.debug('admission', {
      path,
      operation: admission.operation,
      namespace: admission.namespace,
      name: admission.name,
      user: admission.userInfo.username,
      allowed: verdict.allowed,
    });
    response
      .writeHead(200, { 'Content-Type': 'application/json' })
      .end(JSON.stringify(reviewResponse(admission.uid, verdict)));
  };
}

export interface WebhookServerOptions {
  port: number;
  host?: string;
  certDir: string;
  context: WebhookContext;
  /** The inspect API (`/apis/...`), served beside the webhooks when given. */
  api?: RequestListener;
  /** Called with each new certificate (at start too), e.g. to inject its CA into the configurations. */
  onCertificate?: (certificate: ServingCertificate) => void;
  pollMs?: number;
}

export interface WebhookServer {
  url: string;
  server: Server;
  stop(): Promise<void>;
}

/**
 * The admission webhooks (and the inspect API) over HTTPS, with the certificate of `certDir` (tls.crt,
 * tls.key), reloaded without a restart when its files change (cert-manager renewing the Secret). A
 * client certificate is asked for, never required: kube-apiserver's front proxy shows one to the
 * inspect API, which checks it; webhook calls come without.
 */
export async function serveWebhooks(options: WebhookServerOptions): Promise<WebhookServer> {
  const { context } = options;
  const certificate = await readCertificate(options.certDir);
  const server = createServer(
    { cert: certificate.cert, key: certificate.key, requestCert: true, rejectUnauthorized: false },
    (request, response) => {
      void answer(context, options.api)(request, response);
    },
  );
  options.onCertificate?.(certificate);
  const stopWatching = watchCertificate(
    options.certDir,
    certificate,
    (next) => {
      server.setSecureContext({ cert: next.cert, key: next.key });
      context.logger.info('webhook serving certificate reloaded', { certDir: options.certDir });
      options.onCertificate?.(next);
    },
    (error) => context.logger.warn('webhook serving certificate not reloaded', { error: error.message }),
    options.pollMs,
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '0.0.0.0', resolve);
  }).catch((error: unknown) => {
    stopWatching();
    throw error;
  });
  const { address, port } = server.address() as AddressInfo;
  return {
    url: `https://${address.includes(':') ? `[${address}]` : address}:${port}`,
    server,
    stop: () => {
      stopWatching();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
