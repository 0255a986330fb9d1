/**
 * The heap the AWSCluster informer cache holds per 1,000 clusters, as the API server returns them
 * (created by `kubectl apply`, status written by the controller), without and with the cache's
 * transform, and what the chain index adds (docs/benchmarks.md#memory). The kube-emulator runs in a
 * child process, and each figure is taken in a fresh process (--expose-gc) as the heap with the
 * cache (or index) less the heap once it is dropped, after full collections.
 *
 *   node --conditions=@keymaster/source --import tsx scripts/cache-memory.ts [clusters]
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { API_VERSION, GROUP, VERSION, type AWSCluster, type IdentityObject } from '@keymaster/api';
import { chainReach, type IdentityStore } from '@keymaster/identity';
import { startKubeEmulator } from '@keymaster/kube-emulator';
import { ChainIndex } from '../src/awsclusteridentity/chain-index.js';
import { withoutUnread } from '../src/kube/cache-transforms.js';
import { PLURAL } from '../src/kube/resources.js';

const CRDS = fileURLToPath(new URL('../../../deploy/crds', import.meta.url));
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
const NAMESPACES = 20;
const ROUNDS = 3;

type Variant = 'raw' | 'kept';
type Figures = { held: number; indexed: number };

/** Populates an API server, then measures each variant in a process of its own, ROUNDS times. */
async function measure(count: number): Promise<void> {
  const server = child(['--serve']);
  try {
    const kubeConfigText = await new Promise<string>((resolve) => server.once('message', resolve));
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(kubeConfigText);
    await populate(kubeConfig, kubeConfig.makeApiClient(CustomObjectsApi), count);
    const rounds: Record<Variant, Figures[]> = { raw: [], kept: [] };
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const variant of ['raw', 'kept'] as const) {
        const measurer = child(['--measure', variant, String(count)], ['--expose-gc']);
        measurer.send(kubeConfigText);
        rounds[variant].push(await new Promise<Figures>((resolve) => measurer.once('message', resolve)));
        measurer.kill();
      }
      process.stderr.write(`round ${round + 1}/${ROUNDS} done\n`);
    }
    const perThousand = (bytes: number) => `${(((bytes / count) * 1000) / 2 ** 20).toFixed(2)} MiB`;
    const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const report = (name: string, runs: Figures[]) =>
      `${name}: cache ${perThousand(median(runs.map(({ held }) => held)))}, chain index ${perThousand(median(runs.map(({ indexed }) => indexed)))} per 1,000 AWSClusters`;
    console.log(
      `${count} AWSClusters, median of ${ROUNDS} processes each, heap after full collections (node ${process.version})`,
    );
    console.log(report('as listed (before)', rounds.raw));
    console.log(report('kept (transform)', rounds.kept));
  } finally {
    server.kill();
  }
}

function child(args: string[], flags: string[] = []) {
  return fork(fileURLToPath(import.meta.url), args, {
    execArgv: [...flags, '--conditions=@keymaster/source', '--import', 'tsx'],
  });
}

/** In a fresh process: the heap the AWSCluster cache holds, then what the chain index adds. */
async function measureOnce(variant: Variant, count: number, kubeConfigText: string): Promise<Figures> {
  const collect = (globalThis as { gc?: () => void }).gc!;
  const heap = () => {
    collect();
    collect();
    return process.memoryUsage().heapUsed;
  };
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(kubeConfigText);
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const list = () =>
    custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL['AWSCluster']! }) as Promise<{
      items: AWSCluster[];
    }>;
  // The list as the API server returns it: what the cache and the index are built from.
  const retained = await build(variant, JSON.stringify(await list()), count);
  // What each retains: the heap with it, less the heap once it is dropped.
  const both = heap();
  delete retained.index;
  const cacheOnly = heap();
  delete retained.cache;
  const neither = heap();
  const held = cacheOnly - neither;
  const indexed = both - cacheOnly;
  return { held, indexed };
}

/** The list parsed as client-node parses it, filed as the informer files it, and the chain index over it. */
async function build(
  variant: Variant,
  listed: string,
  count: number,
): Promise<{ cache?: Map<string, AWSCluster>; index?: ChainIndex }> {
  const cache = new Map<string, AWSCluster>();
  for (const item of (JSON.parse(listed) as { items: AWSCluster[] }).items) {
    const kept = variant === 'kept' ? withoutUnread(item) : item;
    cache.set(`${kept.metadata.namespace}/${kept.metadata.name}`, kept);
  }
  // Each cluster's chain: its tenant's role, the hub, the controller identity.
  const index = new ChainIndex((cluster) =>
    chainReach(store, {
      namespace: cluster.metadata.namespace ?? '',
      identityRef: cluster.spec.identityRef,
      controllerNamespace: 'keymaster-system',
    }),
  );
  for (const cluster of cache.values()) await index.index(cluster);
  if (cache.size !== count || index.clustersReaching(HUB).length !== count)
    throw new Error('the cache or the index does not hold every cluster');
  return { cache, index };
}

const HUB = { kind: 'AWSClusterRoleIdentity' as const, name: 'hub' };
const role = (name: string, source?: string): IdentityObject => ({
  apiVersion: API_VERSION,
  kind: 'AWSClusterRoleIdentity',
  metadata: { name },
  spec: {
    roleARN: `arn:aws:iam::111111111111:role/${name}`,
    allowedNamespaces: {},
    ...(source ? { sourceIdentityRef: { kind: 'AWSClusterRoleIdentity', name: source } } : {}),
  },
});
const identities = new Map(
  [role('hub'), ...Array.from({ length: NAMESPACES }, (_, n) => role(`tenant-${n}`, 'hub'))].map((identity) => [
    identity.metadata.name,
    identity,
  ]),
);
const store: IdentityStore = {
  getIdentity: (kind, name) => Promise.resolve(kind === 'AWSClusterRoleIdentity' ? identities.get(name) : undefined),
  listIdentities: () => Promise.resolve([...identities.values()]),
  getSecret: () => Promise.resolve(undefined),
  getNamespace: (name) => Promise.resolve({ name, labels: {} }),
};

/** `count` AWSClusters as `kubectl apply` creates them, each with the status a converged cluster has. */
async function populate(kubeConfig: KubeConfig, custom: CustomObjectsApi, count: number): Promise<void> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  for (let n = 0; n < NAMESPACES; n += 1) await core.createNamespace({ body: { metadata: { name: `tenant-${n}` } } });
  const now = new Date().toISOString();
  for (let n = 0; n < count; n += 1) {
    const namespace = `tenant-${n % NAMESPACES}`;
    const applied = {
      apiVersion: API_VERSION,
      kind: 'AWSCluster',
      metadata: { name: `cluster-${n}`, namespace, labels: { 'cluster.x-k8s.io/cluster-name': `cluster-${n}` } },
      spec: {
        region: 'us-west-2',
        identityRef: { kind: 'AWSClusterRoleIdentity', name: namespace },
        additionalTags: { team: `team-${n % 7}`, 'cost-center': 'platform' },
      },
    };
    const target = { group: GROUP, version: VERSION, namespace, plural: 'awsclusters', name: `cluster-${n}` };
    const created = (await custom.createNamespacedCustomObject({
      ...target,
      body: { ...applied, metadata: { ...applied.metadata, annotations: { [LAST_APPLIED]: JSON.stringify(applied) } } },
      fieldManager: 'kubectl-client-side-apply',
    })) as AWSCluster;
    const condition = (type: string, reason: string, message: string) => ({
      type,
      status: 'True' as const,
      observedGeneration: 1,
      lastTransitionTime: now,
      reason,
      message,
    });
    await custom.replaceNamespacedCustomObjectStatus({
      ...target,
      body: {
        ...created,
        status: {
          accountID: '222222222222',
          principalARN: `arn:aws:sts::222222222222:assumed-role/${namespace}/keymaster-${namespace}`,
          identityChain: [
            { kind: 'AWSClusterRoleIdentity', name: namespace, roleARN: `arn:aws:iam::222222222222:role/${namespace}` },
            { kind: 'AWSClusterRoleIdentity', name: 'hub', roleARN: 'arn:aws:iam::111111111111:role/hub' },
            { kind: 'AWSClusterControllerIdentity', name: 'default' },
          ],
          identityChainSummary: `${namespace},hub,default`,
          observedGeneration: 1,
          conditions: [
            condition(
              'PrincipalCredentialRetrieved',
              'PrincipalCredentialRetrieved',
              'Credentials retrieved for the identity chain',
            ),
            condition(
              'PrincipalUsageAllowed',
              'PrincipalUsageAllowed',
              `Every link of the chain allows namespace ${namespace}`,
            ),
            condition(
              'ClusterNameUnique',
              'ClusterNameUnique',
              `No other AWSCluster uses clusterName "cluster-${n}" in account 222222222222`,
            ),
            condition('TagsInSync', 'TagsInSync', '20 resource(s) in sync'),
            condition('Ready', 'Ready', 'Tags are in sync'),
          ],
          tagging: {
            resourcesDiscovered: 20,
            resourcesInSync: 20,
            resourcesDrifted: 0,
            resourcesFailed: 0,
            managedTags: { team: `team-${n % 7}`, 'cost-center': 'platform', tenant: namespace },
            lastSyncTime: now,
            summary: '20/20',
          },
        },
      },
    });
    if ((n + 1) % 250 === 0) process.stderr.write(`created ${n + 1}/${count} AWSClusters\n`);
  }
}

if (process.argv[2] === '--serve') {
  const kube = await startKubeEmulator({ crds: CRDS });
  process.send?.(kube.kubeConfig());
} else if (process.argv[2] === '--measure') {
  const kubeConfigText = await new Promise<string>((resolve) => process.once('message', resolve));
  process.send?.(await measureOnce(process.argv[3] as Variant, Number(process.argv[4]), kubeConfigText));
} else {
  await measure(Number(process.argv[2] ?? 1000));
}
