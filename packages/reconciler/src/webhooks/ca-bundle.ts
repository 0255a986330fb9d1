import {
  AdmissionregistrationV1Api,
  ApiregistrationV1Api,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
} from '@kubernetes/client-node';
import { INSPECT_API_SERVICE } from '../inspect-api/resources.js';
import type { Logger } from '../logging.js';

const jsonPatch = setHeaderOptions('Content-Type', PatchStrategy.JsonPatch);

/**
 * Writes the CA that signed the serving certificate into every webhook's `clientConfig.caBundle` of
 * the Mutating- and ValidatingWebhookConfiguration named `name`, and into the inspect API's APIService
 * (`--webhook-inject-ca-bundle`; the other way is cert-manager's `cert-manager.io/inject-ca-from`
 * annotation). One that is not installed is skipped: the Kustomize or Helm install creates them.
 */
export async function injectCaBundle(kubeConfig: KubeConfig, name: string, ca: string, logger: Logger): Promise<void> {
  const api = kubeConfig.makeApiClient(AdmissionregistrationV1Api);
  const apiServices = kubeConfig.makeApiClient(ApiregistrationV1Api);
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
  try {
    const service = await apiServices.readAPIService({ name: INSPECT_API_SERVICE });
    if (service.spec?.caBundle === caBundle) return;
    await apiServices.patchAPIService(
      { name: INSPECT_API_SERVICE, body: [{ op: 'add', path: '/spec/caBundle', value: caBundle }] },
      jsonPatch,
    );
    logger.info('inspect API CA bundle injected', { apiService: INSPECT_API_SERVICE });
  } catch (error) {
    logger.warn('inspect API CA bundle not injected', {
      apiService: INSPECT_API_SERVICE,
      error: (error as Error).message,
    });
  }
}
