import { CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import {
  GROUP,
  KINDS,
  VERSION,
  type AWSAccountBinding,
  type AWSCluster,
  type AWSClusterLedger,
  type AWSTagPolicy,
} from '@keymaster/api';
import {
  DEFAULT_CAPA_OPTIONS,
  IdentityResolver,
  isNamespacedKind,
  kubeIdentityStore,
  linkName,
  refGroup,
  type CapaOptions,
  type IdentityStore,
} from '@keymaster/identity';
import { RateLimiters } from '@keymaster/tagging';
import type { AwsCredentialIdentityProvider } from '@smithy/types';
import { adoptedFrom } from '../adoption/index.js';
import { FOLLOWED_KINDS, type ClusterAPICluster } from '../adoption/capa-objects.js';
import { kubeRead } from '../kube/access-error.js';
import { readLedgerEpoch } from '../kube/ledger-epoch.js';

/** What `keymaster plan` and `keymaster explain` read and act with, set up as the controller is. */
export interface InspectContext {
  kubeConfig: KubeConfig;
  core: CoreV1Api;
  custom: CustomObjectsApi;
  /**
   * Identities, Secrets of the controller namespace, Namespaces: each read once per command. Every read
   * here and below that the API server refuses throws a KubeAccessError saying what was read and why not.
   */
  store: IdentityStore;
  /** The controller's identity rules: every link checked, Secrets from the controller namespace only. */
  resolver: IdentityResolver;
  controllerNamespace: string;
  /** Every AWSTagPolicy: the global one (`default`) and those that select clusters. */
  tagPolicies(): Promise<AWSTagPolicy[]>;
  /** Every AWSCluster of every namespace (the claim of a cluster name is decided among all of them). */
  allClusters(): Promise<AWSCluster[]>;
  /** The AWSAccountBinding of an account, if any. */
  accountBinding(accountId: string): Promise<AWSAccountBinding | undefined>;
  /** --tenant-label: on identities, the tenant whose accounts they may act in. */
  tenantLabel: string;
  /** Every AWSClusterLedger: the claims, and each cluster's removal memory. */
  allLedgers(): Promise<AWSClusterLedger[]>;
  /** When the ledger CRD was created (clusters older than it may carry legacy tags); undefined when it cannot be read. */
  ledgerEpoch(): Promise<Date | undefined>;
  limiters: RateLimiters;
  layerGracePeriodMs: number;
  now(): Date;
  /**
   * Whether the cluster is the companion of a Cluster API Cluster (`adoptedFrom`): only then are its
   * spec.clusterAPI tags CAPA's layer.
   */
  companion(cluster: AWSCluster): Promise<boolean>;
}

export interface InspectOptions {
  kubeConfig: KubeConfig;
  controllerNamespace: string;
  stsRegion: string;
  layerGracePeriodMs: number;
  tenantLabel: string;
  /** Default: AWS_ENDPOINT_URL, and the SDK's default credential chain, as `keymaster run`. */
  aws?: { endpoint?: string; credentials?: AwsCredentialIdentityProvider };
  /** How CAPA's identities are read (default: as `keymaster run --adopt-cluster-api` with its defaults). */
  capa?: CapaOptions;
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

const PLURALS = new Map(KINDS.map(({ kind, plural }) => [kind, plural]));
/** Cluster API's Cluster: its companion AWSCluster's spec.clusterAPI is trusted (`companion`). */
const CLUSTERS = FOLLOWED_KINDS.Cluster;

/** A resource of our API group (or an identity kind of CAPA's) as RBAC names it. */
const ours = (kind: string, apiGroup = GROUP) => `${PLURALS.get(kind)!}.${apiGroup}`;

/** The API server's answers, each read once, a refusal told as a KubeAccessError. */
function checkedStore(direct: IdentityStore): IdentityStore {
  return {
    getIdentity: memoize((kind, name, namespace, apiGroup) =>
      kubeRead(
        `read ${linkName({ ...(apiGroup && apiGroup !== GROUP ? { apiGroup } : {}), kind, name })}`,
        {
          verb: 'get',
          resource: ours(kind, refGroup({ apiGroup })),
          ...(isNamespacedKind(kind) ? { namespace } : {}),
          name,
        },
        () => direct.getIdentity(kind, name, namespace, apiGroup),
      ),
    ),
    listIdentities: memoize(() =>
      kubeRead('list the identities', { verb: 'list', resource: ours('AWSClusterRoleIdentity') }, () =>
        direct.listIdentities(),
      ),
    ),
    getSecret: memoize((namespace, name) =>
      kubeRead(
        `read Secret ${namespace}/${name}`,
        { verb: 'get', resource: 'secrets', namespace, name },
        () => direct.getSecret(namespace, name),
        "the controller's Secrets are for the controller and the platform team alone: ask them to run this command",
      ),
    ),
    getNamespace: memoize((name) =>
      kubeRead(`read Namespace ${name} (its labels)`, { verb: 'get', resource: 'namespaces', name }, () =>
        direct.getNamespace(name),
      ),
    ),
  };
}

export function createInspectContext(options: InspectOptions): InspectContext {
  const { kubeConfig, controllerNamespace } = options;
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const store = checkedStore(kubeIdentityStore(kubeConfig, options.capa ?? DEFAULT_CAPA_OPTIONS));
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
    tagPolicies: memoize(() =>
      kubeRead(
        'list the AWSTagPolicies (the global and the selected tag layers)',
        { verb: 'list', resource: ours('AWSTagPolicy') },
        async () =>
          (
            (await custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: 'awstagpolicies' })) as {
              items: AWSTagPolicy[];
            }
          ).items,
      ),
    ),
    allClusters: memoize(() =>
      kubeRead(
        'list the AWSClusters of every namespace',
        { verb: 'list', resource: ours('AWSCluster'), namespace: 'all' },
        async () =>
          (
            (await custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: 'awsclusters' })) as {
              items: AWSCluster[];
            }
          ).items,
      ),
    ),
    accountBinding: memoize((accountId: string) =>
      kubeRead(
        `read AWSAccountBinding ${accountId} (which tenants may act in the account)`,
        { verb: 'get', resource: ours('AWSAccountBinding'), name: accountId },
        () =>
          orUndefined(
            custom.getClusterCustomObject({
              group: GROUP,
              version: VERSION,
              plural: 'awsaccountbindings',
              name: accountId,
            }) as Promise<AWSAccountBinding>,
          ),
      ),
    ),
    tenantLabel: options.tenantLabel,
    allLedgers: memoize(() =>
      kubeRead(
        'list the AWSClusterLedgers of every namespace',
        { verb: 'list', resource: ours('AWSClusterLedger'), namespace: 'all' },
        async () =>
          (
            (await custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: 'awsclusterledgers' })) as {
              items: AWSClusterLedger[];
            }
          ).items,
      ),
    ),
    // Read as the controller reads it; whoever cannot read CRDs plans as if no legacy tag were to convert.
    ledgerEpoch: memoize(() => readLedgerEpoch(kubeConfig).catch(() => undefined)),
    limiters: new RateLimiters(),
    layerGracePeriodMs: options.layerGracePeriodMs,
    now: () => new Date(),
    companion: async (cluster) => {
      // Only an AWSCluster with spec.clusterAPI may be one: no read for the others.
      if (!cluster.spec.clusterAPI) return false;
      const { namespace = '', name = '' } = cluster.metadata;
      const [owner, labels] = await Promise.all([
        kubeRead(
          `read Cluster ${namespace}/${name} (whether the AWSCluster is its companion, so that CAPA's tags are read)`,
          { verb: 'get', resource: `${CLUSTERS.plural}.${CLUSTERS.group}`, namespace, name },
          () =>
            orUndefined(
              custom.getNamespacedCustomObject({ ...CLUSTERS, namespace, name }) as Promise<ClusterAPICluster>,
            ),
        ),
        store.getNamespace(namespace),
      ]);
      const adoption = {
        clusters: { get: () => owner },
        namespaces: { get: () => labels && { metadata: { name: namespace, labels: labels.labels } } },
      };
      return adoptedFrom(cluster, adoption) !== undefined;
    },
  };
}
