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

/** How long an answer is reused: kube-apiserver's delegating authorizer keeps both kinds 10 s. */
export const ACCESS_REVIEW_TTL_MS = 10_000;
/** How many answers are kept at most: the oldest goes first. */
export const ACCESS_REVIEW_CACHE_SIZE = 1024;

/**
 * Reuses each answer of `review` for the same user and read for `ACCESS_REVIEW_TTL_MS`, as an
 * aggregated API server's delegating authorizer does: a `kubectl keymaster plan` repeated, or a list
 * followed by its gets, costs the API server one review. A revoked grant is honoured within the TTL.
 * Failed reviews are not kept.
 */
export function cachedAccessReview(review: AccessReview, now: () => number): AccessReview {
  const answers = new Map<string, { at: number; answer: Awaited<ReturnType<AccessReview>> }>();
  return async (user, read) => {
    const key = JSON.stringify([
      user.username,
      user.uid,
      user.groups,
      user.extra,
      read.verb,
      read.namespace,
      read.name,
    ]);
    const kept = answers.get(key);
    if (kept && now() - kept.at < ACCESS_REVIEW_TTL_MS) return kept.answer;
    const answer = await review(user, read);
    answers.delete(key);
    answers.set(key, { at: now(), answer });
    // A Map iterates in insertion order: the first key is the oldest answer.
    if (answers.size > ACCESS_REVIEW_CACHE_SIZE) answers.delete(answers.keys().next().value as string);
    return answer;
  };
}
