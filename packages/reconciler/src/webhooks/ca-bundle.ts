import { AdmissionregistrationV1Api, PatchStrategy, setHeaderOptions, type KubeConfig } from '@kubernetes/client-node';
import type { Logger } from '../logging.js';

const jsonPatch = setHeaderOptions('Content-Type', PatchStrategy.JsonPatch);

/**
 * Writes the CA that signed the serving certificate into every webhook's `clientConfig.caBundle` of
 * the Mutating- and ValidatingWebhookConfiguration named `name` (`--webhook-inject-ca-bundle`; the
 * other way is cert-manager's `cert-manager.io/inject-ca-from` annotation). A configuration that is
 * not installed is skipped: the Kustomize or Helm install creates both.
 */
export async function injectCaBundle(kubeConfig: KubeConfig, name: string, ca: string, logger: Logger): Promise<void> {
  const api = kubeConfig.makeApiClient(AdmissionregistrationV1Api);
  const caBundle = Buffer.from(ca).toString('base64');
  const configurations = [
    {
      kind: 'MutatingWebhookConfiguration',
      read: () => api.readMutatingWebhookConfiguration({ name }),
      patch: (body: object[]) => api.patchMutatingWebhookConfiguration({ name, body }, jsonPatch),
    },
    {
      kind: 'ValidatingWebhookConfiguration',
      read: () => api.readValidatingWebhookConfiguration({ name }),
      patch: (body: object[]) => api.patchValidatingWebhookConfiguration({ name, body }, jsonPatch),
    },
  ];
  for (const { kind, read, patch } of configurations) {
    try {
      const webhooks = (await read()).webhooks ?? [];
      const stale = webhooks.flatMap((webhook, index) =>
        webhook.clientConfig.caBundle === caBundle
          ? []
          : [{ op: 'add', path: `/webhooks/${index}/clientConfig/caBundle`, value: caBundle }],
      );
      if (stale.length === 0) continue;
      await patch(stale);
      logger.info('webhook CA bundle injected', { kind, name, webhooks: stale.length });
    } catch (error) {
      logger.warn('webhook CA bundle not injected', { kind, name, error: (error as Error).message });
    }
  }
}
