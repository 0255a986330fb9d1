import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { ServiceAccountTokens } from './providers/provider.js';

/**
 * The TokenRequest API (`POST .../serviceaccounts/NAME/token`) of the API server `kubeConfig` names:
 * a token bound to nothing but its audience and expiry. The controller may create tokens and nothing
 * else of ServiceAccounts (deploy/rbac).
 */
export function kubeServiceAccountTokens(kubeConfig: KubeConfig): ServiceAccountTokens {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  return {
    request: async (namespace, name, audience, expirationSeconds) => {
      const answer = await core.createNamespacedServiceAccountToken({
        namespace,
        name,
        body: { spec: { audiences: [audience], expirationSeconds } },
      });
      if (!answer.status?.token) throw new Error('the API server answered the TokenRequest without a token');
      return { token: answer.status.token, expiresAt: new Date(answer.status.expirationTimestamp) };
    },
  };
}
