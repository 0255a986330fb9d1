import { AuthorizationV1Api, type KubeConfig } from '@kubernetes/client-node';
import { GROUP } from '@keymaster/api';
import type { FrontProxyUser } from './front-proxy.js';

/** What the caller asks to read: AWSClusters, one (`name`), a namespace's, or every namespace's (no namespace). */
export interface ClusterRead {
  verb: 'get' | 'list';
  namespace?: string;
  name?: string;
}

/** Whether a user may do something, as the API server's authorizers decide it. */
export type AccessReview = (user: FrontProxyUser, read: ClusterRead) => Promise<{ allowed: boolean; reason?: string }>;

/**
 * A SubjectAccessReview of the caller on the AWSClusters it asks about: a cluster's plan and
 * explanation are for whoever may read the cluster itself, whatever else RBAC grants on this API.
 */
export function subjectAccessReview(kubeConfig: KubeConfig): AccessReview {
  const api = kubeConfig.makeApiClient(AuthorizationV1Api);
  return async (user, { verb, namespace, name }) => {
    const review = await api.createSubjectAccessReview({
      body: {
        spec: {
          user: user.username,
          ...(user.uid === undefined ? {} : { uid: user.uid }),
          groups: user.groups,
          extra: user.extra,
          resourceAttributes: {
            verb,
            group: GROUP,
            resource: 'awsclusters',
            ...(namespace === undefined ? {} : { namespace }),
            ...(name === undefined ? {} : { name }),
          },
        },
      },
    });
    return {
      allowed: review.status?.allowed === true && review.status.denied !== true,
      ...(review.status?.reason ? { reason: review.status.reason } : {}),
    };
  };
}
