import { CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { GROUP, SINGLETON_NAME, VERSION, type AWSCluster, type AWSTagPolicy } from '@keymaster/api';
import { IdentityResolver, kubeIdentityStore, type IdentityStore } from '@keymaster/identity';
import { RateLimiters } from '@keymaster/tagging';
import type { AwsCredentialIdentityProvider } from '@smithy/types';

/** What `keymaster plan` and `keymaster explain` read and act with, set up as the controller is. */
export interface InspectContext {
  kubeConfig: KubeConfig;
  core: CoreV1Api;
  custom: CustomObjectsApi;
  /** Identities, Secrets of the controller namespace, Namespaces: each read once per command. */
  store: IdentityStore;
  /** The controller's identity rules: every link checked, Secrets from the controller namespace only. */
  resolver: IdentityResolver;
  controllerNamespace: string;
  /** The AWSTagPolicy `default`, if any. */
  policy(): Promise<AWSTagPolicy | undefined>;
  /** Every AWSCluster of every namespace (the claim of a cluster name is decided among all of them). */
  allClusters(): Promise<AWSCluster[]>;
  limiters: RateLimiters;
  layerGracePeriodMs: number;
  now(): Date;
}

export interface InspectOptions {
  kubeConfig: KubeConfig;
  controllerNamespace: string;
  stsRegion: string;
  layerGracePeriodMs: number;
  /** Default: AWS_ENDPOINT_URL, and the SDK's default credential chain, as `keymaster run`. */
  aws?: { endpoint?: string; credentials?: AwsCredentialIdentityProvider };
}

/** Reads each object once: a command sees one state of the cluster, and a chain shared by many clusters costs one read. */
function memoize<A extends unknown[], T>(read: (...args: A) => Promise<T>): (...args: A) => Promise<T> {
  const seen = new Map<string, Promise<T>>();
  return (...args) => {
    const key = JSON.stringify(args);
    let found = seen.get(key);
    if (!found) seen.set(key, (found = read(...args)));
    return found;
  };
}

const orUndefined = <T>(read: Promise<T>): Promise<T | undefined> =>
  read.catch((error: unknown) => {
    if ((error as { code?: number }).code === 404) return undefined;
    throw error;
  });

export function createInspectContext(options: InspectOptions): InspectContext {
  const { kubeConfig, controllerNamespace } = options;
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const direct = kubeIdentityStore(kubeConfig);
  const store: IdentityStore = {
    getIdentity: memoize((kind, name) => direct.getIdentity(kind, name)),
    listIdentities: memoize(() => direct.listIdentities()),
    getSecret: memoize((namespace, name) => direct.getSecret(namespace, name)),
    getNamespace: memoize((name) => direct.getNamespace(name)),
  };
  const endpoint = options.aws?.endpoint ?? process.env['AWS_ENDPOINT_URL'];
  const resolver = new IdentityResolver({
    store,
    controllerNamespace,
    aws: { stsRegion: options.stsRegion, ...(endpoint ? { endpoint } : {}) },
    ...(options.aws?.credentials ? { controllerCredentials: options.aws.credentials } : {}),
  });
  return {
    kubeConfig,
    core: kubeConfig.makeApiClient(CoreV1Api),
    custom,
    store,
    resolver,
    controllerNamespace,
    policy: memoize(() =>
      orUndefined(
        custom.getClusterCustomObject({
          group: GROUP,
          version: VERSION,
          plural: 'awstagpolicies',
          name: SINGLETON_NAME,
        }) as Promise<AWSTagPolicy>,
      ),
    ),
    allClusters: memoize(async () => {
      const list = (await custom.listClusterCustomObject({
        group: GROUP,
        version: VERSION,
        plural: 'awsclusters',
      })) as {
        items: AWSCluster[];
      };
      return list.items;
    }),
    limiters: new RateLimiters(),
    layerGracePeriodMs: options.layerGracePeriodMs,
    now: () => new Date(),
  };
}
