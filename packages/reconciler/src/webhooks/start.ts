import type { RequestListener } from 'node:http';
import type { KubeConfig } from '@kubernetes/client-node';
import type { RunFlags } from '../cli/flags.js';
import type { Logger } from '../logging.js';
import type { Caches } from '../kube/caches.js';
import { injectCaBundle } from './ca-bundle.js';
import { serveWebhooks, type WebhookServer } from './server.js';
import { IDENTITY_KINDS } from '@keymaster/api';

/**
 * The admission webhooks of `keymaster run`, answered from the controllers' informer caches (served by
 * every replica, leader or not, as controller-runtime's webhook server is).
 */
export function startWebhooks(
  flags: RunFlags,
  caches: Caches,
  kubeConfig: KubeConfig,
  logger: Logger,
  api?: RequestListener,
): Promise<WebhookServer> {
  return serveWebhooks({
    ...(api ? { api } : {}),
    port: flags.webhookPort ?? 0,
    certDir: flags.webhookCertDir,
    context: {
      store: caches.identityStore(),
      clusters: () => caches.clusters.list(),
      identities: () => IDENTITY_KINDS.flatMap((kind) => caches.identities[kind].list()),
      tagPolicies: () => caches.tagPolicies.list(),
      controllerNamespace: flags.namespace,
      privileged: flags.privileged,
      tenancy: flags.tenancy,
      logger,
    },
    ...(flags.injectCaBundle
      ? {
          onCertificate: (certificate) =>
            void injectCaBundle(kubeConfig, flags.webhookConfigurationName, certificate.ca, logger),
        }
      : {}),
  });
}
