import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  KubeConfig,
  KubernetesObjectApi,
  loadAllYaml,
  type KubernetesObject,
  type V1CustomResourceDefinition,
} from '@kubernetes/client-node';
import { requireClusterctl } from '@keymaster/testenv';
import { untilServed } from './settled.js';

/** The labels clusterctl reads, on a CRD (every object of the kind) or on one object. */
export const MOVE_LABEL = 'clusterctl.cluster.x-k8s.io/move';
export const MOVE_HIERARCHY_LABEL = 'clusterctl.cluster.x-k8s.io/move-hierarchy';

/** A management cluster clusterctl can work with: its ops user's kubeconfig (`system:masters`). */
export interface ClusterctlTarget {
  opsKubeConfig(): string;
}

/**
 * What `clusterctl init` leaves on a management cluster, written as it writes it (the internet,
 * where it would fetch the providers' components, is out of reach): Cluster API's core CRDs and
 * clusterctl's inventory CRD from the pinned release (provision-clusterctl.sh), and the inventory
 * (writeInventory). Waits until the CRDs are served.
 */
export async function initClusterApi(cluster: ClusterctlTarget): Promise<void> {
  const { crds: folder } = requireClusterctl();
  const crds: V1CustomResourceDefinition[] = [];
  for (const file of (await readdir(folder)).filter((name) => name.endsWith('.yaml')).sort())
    crds.push(...(loadAllYaml(await readFile(join(folder, file), 'utf8')) as V1CustomResourceDefinition[]));
  const config = new KubeConfig();
  config.loadFromString(cluster.opsKubeConfig());
  const objects = KubernetesObjectApi.makeApiClient(config);
  for (const crd of crds) await objects.create(crd);
  await untilServed(cluster.opsKubeConfig(), crds);
  await writeInventory(cluster);
}

/**
 * The inventory's `Provider` of the core provider in its namespace, as `clusterctl init` writes it,
 * on a cluster whose Cluster API CRDs are installed already (initClusterApi, or testenv's installCapa).
 */
export async function writeInventory(cluster: ClusterctlTarget): Promise<void> {
  const config = new KubeConfig();
  config.loadFromString(cluster.opsKubeConfig());
  const objects = KubernetesObjectApi.makeApiClient(config);
  const { version } = requireClusterctl();
  const provider = 'cluster-api';
  const inventory: KubernetesObject[] = [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'capi-system' } },
    {
      apiVersion: 'clusterctl.cluster.x-k8s.io/v1alpha3',
      kind: 'Provider',
      metadata: {
        name: provider,
        namespace: 'capi-system',
        labels: {
          'clusterctl.cluster.x-k8s.io': '',
          'clusterctl.cluster.x-k8s.io/core': 'inventory',
          'cluster.x-k8s.io/provider': provider,
        },
      },
      providerName: provider,
      type: 'CoreProvider',
      version: `v${version}`,
    } as KubernetesObject,
  ];
  for (const object of inventory) await objects.create(object);
}

export interface ClusterctlRun {
  stdout: string;
  stderr: string;
}

/**
 * `clusterctl move --namespace NAMESPACE --kubeconfig FROM --to-kubeconfig TO`, the real binary, as
 * docs/operations.md says to run it; fails with its output when it fails.
 */
export async function clusterctlMove(
  from: ClusterctlTarget,
  to: ClusterctlTarget,
  namespace: string,
): Promise<ClusterctlRun> {
  const dir = await mkdtemp(join(tmpdir(), 'keymaster-e2e-clusterctl-'));
  try {
    await writeFile(join(dir, 'source.kubeconfig'), from.opsKubeConfig(), { mode: 0o600 });
    await writeFile(join(dir, 'target.kubeconfig'), to.opsKubeConfig(), { mode: 0o600 });
    const args = [
      'move',
      '--namespace',
      namespace,
      '--kubeconfig',
      'source.kubeconfig',
      '--to-kubeconfig',
      'target.kubeconfig',
    ];
    return await new Promise<ClusterctlRun>((resolve, reject) =>
      execFile(
        requireClusterctl().clusterctl,
        args,
        {
          cwd: dir,
          // Its own HOME (its config and logs); no look for a newer release on GitHub, out of reach.
          env: { PATH: process.env['PATH'] ?? '', HOME: dir, CLUSTERCTL_DISABLE_VERSIONCHECK: 'true' },
          timeout: 300_000,
        },
        (error, stdout, stderr) =>
          error
            ? reject(new Error(`clusterctl ${args.join(' ')} failed: ${error.message}\n${stdout}\n${stderr}`))
            : resolve({ stdout, stderr }),
      ),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
