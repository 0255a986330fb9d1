import { ApiException, CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { KeymasterError } from '@keymaster/api';
import type { ClusterPlanReport } from '../inspect/cluster-plan.js';
import { latestEvents } from '../inspect/events.js';
import type { Explanation } from '../inspect/explain.js';
import { clusterNotFound, type Targets } from '../inspect/targets.js';
import { readable } from '../inspect/unchecked.js';
import { kubeRead } from '../kube/access-error.js';
import {
  INSPECT_API_SERVICE,
  INSPECT_GROUP,
  INSPECT_RESOURCES,
  INSPECT_VERSION,
  type InspectResource,
} from './resources.js';

/** The API server has no inspect API: no APIService registers it (Keymaster installed without it). */
export class InspectApiMissing extends Error {}

const statusOf = (error: ApiException<unknown>): { details?: { kind?: string } } => {
  try {
    return JSON.parse(error.body as string) as { details?: { kind?: string } };
  } catch {
    return {};
  }
};

/**
 * A read of the inspect API through the API server, as the kubeconfig's user: the API server's RBAC
 * and then the controller's SubjectAccessReview decide. A 404 that is not the controller's (its
 * Status names the resource) means the API is not installed; a 503, that the controller does not answer.
 */
async function ask<T>(
  what: string,
  resource: InspectResource,
  { verb, namespace }: { verb: 'get' | 'list'; namespace?: string },
  call: () => Promise<T>,
): Promise<T> {
  try {
    return await kubeRead(
      what,
      { verb, resource: `${resource.plural}.${INSPECT_GROUP}`, namespace: namespace ?? 'all' },
      call,
      'ask the platform team for it, or name a cluster of a namespace whose AWSClusters you may read',
    );
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause;
    if (!(cause instanceof ApiException)) throw error;
    if (cause.code === 404 && statusOf(cause).details?.kind !== resource.plural)
      throw new InspectApiMissing(`the API server serves no ${INSPECT_GROUP} (APIService ${INSPECT_API_SERVICE})`);
    if (cause.code === 503)
      throw new KeymasterError(
        'ERR_KEYMASTER_INSPECT_API_UNAVAILABLE',
        `cannot ${what}: the controller does not answer its inspect API (APIService ${INSPECT_API_SERVICE}: 503)`,
        {
          hint: `Check that the controller runs and is Ready (\`kubectl get apiservice ${INSPECT_API_SERVICE}\` says why not), or plan on this machine with --local.`,
        },
      );
    if (cause.code === 429)
      throw new KeymasterError('ERR_KEYMASTER_INSPECT_API_BUSY', `cannot ${what}: ${(error as Error).message}`, {
        hint: 'The controller inspects one request per namespace at a time: retry in a moment.',
      });
    throw error;
  }
}

const base = { group: INSPECT_GROUP, version: INSPECT_VERSION };

/** One cluster's object of a resource of the inspect API; the controller's 404 is the cluster's absence. */
function getOne(kubeConfig: KubeConfig, what: string, resource: InspectResource, namespace: string, name: string) {
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const { plural } = resource;
  return ask(what, resource, { verb: 'get', namespace }, () =>
    custom.getNamespacedCustomObject({ ...base, namespace, plural, name }).catch((error: unknown) => {
      if (error instanceof ApiException && error.code === 404 && statusOf(error).details?.kind === plural)
        throw clusterNotFound(namespace, name);
      throw error;
    }),
  );
}

/** The controller's plans of the clusters named, as `keymaster plan` shows them. */
export async function plansFromController(kubeConfig: KubeConfig, targets: Targets): Promise<ClusterPlanReport[]> {
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const resource = INSPECT_RESOURCES.plan;
  const plural = resource.plural;
  if ('cluster' in targets) {
    const { namespace, name } = targets.cluster;
    const plan = (await getOne(
      kubeConfig,
      `get the plan of AWSCluster ${namespace}/${name}`,
      resource,
      namespace,
      name,
    )) as {
      report: ClusterPlanReport;
    };
    return [plan.report];
  }
  const list = (await ('namespace' in targets
    ? ask(
        `get the plans of namespace ${targets.namespace}`,
        resource,
        { verb: 'list', namespace: targets.namespace },
        () => custom.listNamespacedCustomObject({ ...base, namespace: targets.namespace, plural }),
      )
    : ask('get the plans of every namespace (-A)', resource, { verb: 'list' }, () =>
        custom.listClusterCustomObject({ ...base, plural }),
      ))) as { items: { report: ClusterPlanReport }[] };
  return list.items.map(({ report }) => report);
}

/** The controller's explanation of a cluster, with its events read as the user (the controller may not). */
export async function explanationFromController(
  kubeConfig: KubeConfig,
  { namespace, name }: { namespace: string; name: string },
): Promise<Explanation> {
  const found = (await getOne(
    kubeConfig,
    `explain AWSCluster ${namespace}/${name}`,
    INSPECT_RESOURCES.explanation,
    namespace,
    name,
  )) as { metadata: { uid?: string }; explanation: Explanation };
  const { explanation } = found;
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const events = await readable(
    "the cluster's events",
    () => latestEvents(core, { namespace, name, ...(found.metadata.uid ? { uid: found.metadata.uid } : {}) }),
    explanation.unchecked,
  );
  return { ...explanation, events: events ?? [] };
}
