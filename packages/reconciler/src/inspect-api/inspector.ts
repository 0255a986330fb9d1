import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import type { AWSCluster } from '@keymaster/api';
import type { RateLimiters } from '@keymaster/tagging';
import type { ControllerContext } from '../context.js';
import { planClusters, type ClusterPlanReport } from '../inspect/cluster-plan.js';
import { adoptedFrom } from '../adoption/index.js';
import type { InspectContext } from '../inspect/context.js';
import { explainCluster, type Explanation } from '../inspect/explain.js';
import { readLedgerEpoch } from '../kube/ledger-epoch.js';
import { byClusterKey } from '../inspect/targets.js';

/** What the inspect API answers with: the controller's own clusters, plans and explanations. */
export interface Inspector {
  /** A served AWSCluster (a parked one has only its metadata cached: it has no plan). */
  cluster(namespace: string, name: string): AWSCluster | undefined;
  /** The served AWSClusters of a namespace, or of all, in namespace/name order. */
  clusters(namespace?: string): AWSCluster[];
  /** Stops planning further clusters once `signal` aborts (the caller went away). */
  plan(clusters: readonly AWSCluster[], signal?: AbortSignal): Promise<ClusterPlanReport[]>;
  /** Without events: the controller may not list them; the caller reads its own. */
  explain(cluster: AWSCluster): Promise<Explanation>;
}

/**
 * `keymaster plan` and `explain` as the running controller makes them: its informer caches (no API
 * read), its credential sets (a plan of a cluster the controller serves costs no STS call) and its
 * tagging budget per account and region (a plan's reads wait their turn with the controller's).
 */
export function controllerInspector(
  context: ControllerContext,
  limiters: RateLimiters,
  layerGracePeriodMs: number,
): Inspector {
  const { caches, options } = context;
  const { kubeConfig } = options;
  let epoch: Promise<Date | undefined> | undefined;
  const inspectContext: InspectContext = {
    kubeConfig,
    core: kubeConfig.makeApiClient(CoreV1Api),
    custom: kubeConfig.makeApiClient(CustomObjectsApi),
    store: caches.identityStore(),
    resolver: context.resolver,
    controllerNamespace: options.controllerNamespace,
    tagPolicies: () => Promise.resolve([...caches.tagPolicies.list()]),
    allClusters: () => Promise.resolve([...caches.clusters.list()]),
    accountBinding: (accountId) => Promise.resolve(caches.accountBindings.get(accountId)),
    tenantLabel: context.tenantLabel,
    allLedgers: () => Promise.resolve([...caches.ledgers.list()]),
    // The ledger CRD's creation time does not change: read once.
    ledgerEpoch: () => (epoch ??= readLedgerEpoch(kubeConfig).catch(() => undefined)),
    limiters,
    layerGracePeriodMs,
    now: () => context.now(),
    companion: (cluster) => Promise.resolve(adoptedFrom(cluster, context.adoption) !== undefined),
  };
  return {
    cluster: (namespace, name) => caches.clusters.get(name, namespace),
    clusters: (namespace) => [...caches.clusters.list(namespace)].sort(byClusterKey),
    plan: (clusters, signal) => planClusters(inspectContext, clusters, signal ? { signal } : {}),
    explain: (cluster) => explainCluster(inspectContext, cluster, { withEvents: false }),
  };
}
