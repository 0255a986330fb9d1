import type { KubeConfig } from '@kubernetes/client-node';
import {
  chainReach,
  defaultControllerCredentials,
  IdentityResolver,
  kubeServiceAccountTokens,
  type CapaOptions,
  type StsRate,
} from '@keymaster/identity';
import type { AwsCredentialIdentityProvider } from '@smithy/types';
import { AdoptionCaches } from './adoption/adoption-caches.js';
import { IdentitySightings } from './awscluster/identity-sightings.js';
import type { SyncTags } from './awscluster/tags.js';
import { DEFAULT_PER_NAMESPACE, type PerNamespaceLimits } from './cli/flags.js';
import { ChainIndex } from './awsclusteridentity/chain-index.js';
import { DeletingIdentities } from './awsclusteridentity/deletions.js';
import type { IdentityAt } from './awsclusteridentity/identity-at.js';
import { kubeAccessError } from './kube/access-error.js';
import { Caches } from './kube/caches.js';
import { EventRecorder } from './kube/events.js';
import { KubeWriter } from './kube/writer.js';
import type { Logger } from './logging.js';
import type { Manager, ManagerOptions } from './manager.js';
import type { KeymasterMetrics } from './metrics.js';
import { Channel } from './runtime/channel.js';
import { realClock, type Clock } from './runtime/clock.js';
import { DEFAULT_TENANT_LABEL } from './webhooks/tenancy.js';

export interface KeymasterOptions extends Pick<ManagerOptions, 'leaderElection' | 'shards' | 'onLeadershipLost'> {
  kubeConfig: KubeConfig;
  /** --tenant-label: on identities, whose tenant an identity is: it acts only in accounts bound to it (default keymaster.dev/tenant). */
  tenantLabel?: string;
  controllerNamespace: string;
  watchNamespace?: string;
  watchFilter?: string;
  /** How CAPA's identities are read (--capa-namespace, --capa-empty-selector); used with adoptClusterAPI. */
  capa?: CapaOptions;
  syncPeriodMs: number;
  maxConcurrentReconciles: number;
  /** Objects served per namespace, the oldest first (default DEFAULT_PER_NAMESPACE); the rest are parked. */
  perNamespace?: PerNamespaceLimits;
  autoControllerIdentity: boolean;
  /** --adopt-cluster-api: Cluster API's CAPA clusters get companion AWSClusters (adoption/). */
  adoptClusterAPI?: boolean;
  /** AWS endpoint and STS region for every session; the controller's credentials (default: the SDK's chain). */
  aws: { endpoint?: string; stsRegion: string };
  controllerCredentials?: AwsCredentialIdentityProvider;
  syncTags: SyncTags;
  /** --max-credential-sets-per-namespace: distinct credential sets one namespace's AWSCredentialsRequests may use. */
  maxCredentialSetsPerNamespace: number;
  /** --sts-rate-per-namespace: STS calls each namespace may make; absent, no bound. */
  stsRatePerNamespace?: StsRate;
  /** --min-renewal-interval: no request's credentials renewed sooner after they were obtained (default 5 minutes). */
  minRenewalIntervalMs?: number;
  /** Tag work running at once per AWS account and region, and in all (default 20 and 500). */
  tagWork?: { perSlot?: number; maxRunning?: number };
  metrics: KeymasterMetrics;
  logger: Logger;
  clock?: Clock;
}

/** What a controller refused a list at start needs. */
const CONTROLLER_RBAC =
  "keymaster run needs the rights of deploy/rbac (or the Helm chart's): run it as the ServiceAccount they bind, or bind them to the user it runs as";

/** What a controller refused a list of Cluster API's or CAPA's kinds needs. */
const ADOPTION_RBAC =
  "keymaster run --adopt-cluster-api needs the rights of deploy/cluster-api too (kubectl apply -k deploy/cluster-api; the chart's adoptClusterAPI.enabled)";

/** What the controllers share: the caches they read, what they write with, and the identity resolver. */
export class ControllerContext {
  readonly options: KeymasterOptions;
  readonly manager: Manager;
  readonly clock: Clock;
  readonly caches: Caches;
  /** Cluster API's and CAPA's clusters, cached with --adopt-cluster-api only. */
  readonly adoption: AdoptionCaches | undefined;
  readonly writer: KubeWriter;
  readonly events: EventRecorder;
  readonly resolver: IdentityResolver;
  /** The controller's own credentials: given (tests, demo), else the SDK's default chain. */
  readonly controllerCredentials: AwsCredentialIdentityProvider;
  /** Which clusters' chains reach each identity and Secret: an event costs the clusters it affects. */
  readonly chains: ChainIndex;
  readonly deletions = new DeletingIdentities();
  /** Identities to look at again, asked from inside the process (a sighting, a chain walked again). */
  readonly identityChanges = new Channel<IdentityAt>();
  readonly sightings = new IdentitySightings((identity) => this.identityChanges.send(identity));
  readonly tenantLabel: string;
  readonly perNamespace: PerNamespaceLimits;

  constructor(manager: Manager, options: KeymasterOptions) {
    this.options = options;
    this.manager = manager;
    const { kubeConfig, controllerNamespace, metrics, logger } = options;
    this.clock = options.clock ?? realClock;
    this.tenantLabel = options.tenantLabel ?? DEFAULT_TENANT_LABEL;
    this.perNamespace = options.perNamespace ?? DEFAULT_PER_NAMESPACE;
    this.controllerCredentials = options.controllerCredentials ?? defaultControllerCredentials();
    this.writer = new KubeWriter(kubeConfig);
    this.events = new EventRecorder(
      kubeConfig,
      'keymaster',
      () => this.now(),
      (error) => logger.error('event not recorded', { error }),
    );
    const watchFailed = (advice: string) => (what: string, error: unknown, retryInMs: number) => {
      const refused = kubeAccessError(error, `list and watch ${what}`, undefined, advice);
      if (refused?.forbidden) manager.refuseStart(refused);
      logger.warn('watch failed; restarting', { watch: what, retryInMs, error: refused?.message ?? error });
    };
    this.caches = new Caches({
      kubeConfig,
      controllerNamespace,
      ...(options.watchNamespace ? { watchNamespace: options.watchNamespace } : {}),
      ...(options.watchFilter ? { watchFilter: options.watchFilter } : {}),
      resyncMs: options.syncPeriodMs,
      clustersPerNamespace: this.perNamespace.clusters,
      clustersParked: metrics.parkedObserver('AWSCluster'),
      clock: this.clock,
      ...(options.adoptClusterAPI && options.capa
        ? { capa: { options: options.capa, crdsMissing: (message: string) => logger.error(message) } }
        : {}),
      onError: watchFailed(CONTROLLER_RBAC),
    });
    manager.addSource(this.caches);
    this.adoption =
      options.adoptClusterAPI === true
        ? new AdoptionCaches({
            kubeConfig,
            namespaces: this.caches.namespaces,
            resyncMs: options.syncPeriodMs,
            clock: this.clock,
            logger,
            onError: watchFailed(ADOPTION_RBAC),
          })
        : undefined;
    if (this.adoption) manager.addSource(this.adoption);
    this.chains = new ChainIndex((cluster) =>
      chainReach(this.caches.identityStore(), {
        namespace: cluster.metadata.namespace ?? '',
        identityRef: cluster.spec.identityRef,
        controllerNamespace,
        capaNamespace: options.capa?.namespace,
      }),
    );
    // Resolves read the informer caches: checking a chain costs no API call.
    this.resolver = new IdentityResolver({
      store: this.caches.identityStore(),
      controllerNamespace,
      ...(options.capa ? { capaNamespace: options.capa.namespace } : {}),
      aws: options.aws,
      controllerCredentials: this.controllerCredentials,
      // Web identities' tokens: the one write the controller makes to ServiceAccounts (serviceaccounts/token).
      serviceAccountTokens: kubeServiceAccountTokens(kubeConfig),
      usersAtDeletion: this.deletions.usersOf,
      ...(options.stsRatePerNamespace ? { stsRate: options.stsRatePerNamespace } : {}),
      ...(options.minRenewalIntervalMs === undefined ? {} : { minRenewalIntervalMs: options.minRenewalIntervalMs }),
      observer: metrics.resolverObserver(),
      clock: () => this.clock.now(),
    });
  }

  readonly now = (): Date => new Date(this.clock.now());
}
