/**
 * The controller's inspect API: an aggregated API (kube-apiserver proxies it to the controller through
 * an APIService) that answers `keymaster plan` and `keymaster explain` for the callers RBAC lets read
 * the cluster. Its own module, light, for the command line and the server alike.
 */
export const INSPECT_GROUP = 'inspect.keymaster.dev';
export const INSPECT_VERSION = 'v1alpha1';
export const INSPECT_API_VERSION = `${INSPECT_GROUP}/${INSPECT_VERSION}`;
/** The APIService that registers the API: kube-apiserver names it `<version>.<group>`. */
export const INSPECT_API_SERVICE = `${INSPECT_VERSION}.${INSPECT_GROUP}`;

/** Each resource of the API: read-only views of one AWSCluster, named as the cluster. */
export const INSPECT_RESOURCES = {
  plan: { plural: 'awsclusterplans', kind: 'AWSClusterPlan', list: true },
  explanation: { plural: 'awsclusterexplanations', kind: 'AWSClusterExplanation', list: false },
} as const;

export type InspectResource = (typeof INSPECT_RESOURCES)[keyof typeof INSPECT_RESOURCES];

/** What `/apis/inspect.keymaster.dev/v1alpha1` lists: kube-apiserver's discovery reads it. */
export function inspectResourceList(): object {
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: INSPECT_API_VERSION,
    resources: Object.values(INSPECT_RESOURCES).map(({ plural, kind, list }) => ({
      name: plural,
      singularName: kind.toLowerCase(),
      namespaced: true,
      kind,
      verbs: list ? ['get', 'list'] : ['get'],
    })),
  };
}

export function inspectGroup(): object {
  const version = { groupVersion: INSPECT_API_VERSION, version: INSPECT_VERSION };
  return { kind: 'APIGroup', apiVersion: 'v1', name: INSPECT_GROUP, versions: [version], preferredVersion: version };
}
