import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startKubeEmulator, type KubeEmulator } from '@keymaster/kube-emulator';
import { installCapa } from '../../../src/capa/install.js';
import { CAPA_FLAVOURS, type CapaFlavour } from '../../../src/capa/installation.js';
import { CAPA_TEMPLATE_VARIABLES, renderCapaCluster } from '../../../src/capa/render.js';
import { requireKubeBinaries } from '../../../src/kube/binaries.js';
import { startRealKube, type RealKube } from '../../../src/kube/real-kube.js';
import { differences } from '../kube/compare.js';

interface Backend {
  name: 'emulator' | 'real';
  kubeconfig: string;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The kinds a follower of CAPA's clusters reads, and what the three flavours create. */
const KINDS = [
  'clusters.cluster.x-k8s.io',
  'clusterclasses.cluster.x-k8s.io',
  'awsclusters.infrastructure.cluster.x-k8s.io',
  'awsclustertemplates.infrastructure.cluster.x-k8s.io',
  'awsmanagedclusters.infrastructure.cluster.x-k8s.io',
  'awsmanagedcontrolplanes.controlplane.cluster.x-k8s.io',
  'awsclusterroleidentities.infrastructure.cluster.x-k8s.io',
  'awsmachinetemplates.infrastructure.cluster.x-k8s.io',
  'kubeadmcontrolplanes.controlplane.cluster.x-k8s.io',
  'machinedeployments.cluster.x-k8s.io',
];

/** The clusters each backend gets, as ops write them: one per flavour, in two tenants' namespaces. */
const CLUSTERS: { flavour: CapaFlavour; name: string; namespace: string; variables?: Record<string, string> }[] = [
  { flavour: 'plain', name: 'plain', namespace: 'tenant-a' },
  { flavour: 'eks', name: 'eks-1', namespace: 'tenant-a', variables: { AWS_REGION: 'us-east-2' } },
  { flavour: 'multitenancy-clusterclass', name: 'nested', namespace: 'tenant-b' },
];

/** What a server sets differently each time it stores an object: its identity and clocks. */
const SERVER_SET = ['uid', 'resourceVersion', 'creationTimestamp', 'time', 'lastTransitionTime'];

function withoutServerSet(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutServerSet);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !SERVER_SET.includes(key))
      .map(([key, field]) => [key, withoutServerSet(field)]),
  );
}

describe('CAPA: its CRDs and templates on the kube-emulator as on kube-apiserver (test/fidelity/capa)', function () {
  this.timeout(600_000);
  let dir: string;
  let real: RealKube | undefined;
  let emulator: KubeEmulator | undefined;
  const backends: Backend[] = [];

  const kubectl = (backend: Backend, ...args: string[]): Promise<Run> =>
    new Promise((resolve) =>
      execFile(
        requireKubeBinaries().kubectl,
        ['--kubeconfig', backend.kubeconfig, ...args],
        { maxBuffer: 64 << 20, timeout: 120_000 },
        (error, stdout, stderr) =>
          resolve({ code: error ? ((error.code as number | undefined) ?? 1) : 0, stdout, stderr }),
      ),
    );
  const succeeded = async (backend: Backend, ...args: string[]): Promise<string> => {
    const run = await kubectl(backend, ...args);
    expect(run.code, `kubectl ${args.join(' ')} on the ${backend.name}: ${run.stderr}`).to.equal(0);
    return run.stdout;
  };
  const read = async (backend: Backend, kinds: string[]): Promise<{ items: unknown[] }> =>
    withoutServerSet(
      JSON.parse(await succeeded(backend, 'get', kinds.join(','), '--all-namespaces', '-o', 'json')),
    ) as {
      items: unknown[];
    };
  /** What `kubectl get -o json` shows of the kinds on both backends, and where the emulator's differs. */
  const readBoth = async (kinds: string[]): Promise<{ real: { items: unknown[] }; found: string[] }> => {
    const [emulated, real] = await Promise.all(
      ['emulator', 'real'].map((name) =>
        read(
          backends.find((backend) => backend.name === name)!,
          kinds,
        ),
      ),
    );
    const found = differences(emulated, real).map(
      ({ path, emulator, real }) => `${path}: emulator ${JSON.stringify(emulator)}, real ${JSON.stringify(real)}`,
    );
    return { real: real!, found };
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'keymaster-capa-'));
    real = await startRealKube();
    emulator = await startKubeEmulator({ tls: true });
    for (const [name, kubeConfig] of [
      ['real', real.kubeConfig()],
      // kubectl asks for a password when its user has no token: any token is the emulator's admin without a token file.
      ['emulator', emulator.kubeConfig({ token: 'ops' })],
    ] as const) {
      const kubeconfig = join(dir, `${name}.kubeconfig`);
      await writeFile(kubeconfig, kubeConfig, { mode: 0o600 });
      await installCapa(kubeConfig);
      backends.push({ name, kubeconfig });
    }
    for (const cluster of CLUSTERS) {
      const file = join(dir, `${cluster.namespace}-${cluster.name}.yaml`);
      await writeFile(file, await renderCapaCluster(cluster));
      for (const backend of backends) {
        if ((await kubectl(backend, 'get', 'namespace', cluster.namespace)).code !== 0)
          await succeeded(backend, 'create', 'namespace', cluster.namespace);
        await succeeded(backend, 'apply', '-f', file);
      }
    }
  });
  after(async () => {
    await emulator?.stop();
    await real?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('are served the same: every CRD, its labels and its conversion as clusterctl init installs them', async () => {
    const { real, found } = await readBoth(['crds']);
    expect(found).to.deep.equal([]);
    const crds = real.items as {
      metadata: { name: string; labels?: Record<string, string> };
      spec: { conversion: unknown };
    }[];
    const awsClusters = crds.find(({ metadata }) => metadata.name === 'awsclusters.infrastructure.cluster.x-k8s.io');
    expect(awsClusters?.spec.conversion).to.deep.equal({
      strategy: 'Webhook',
      webhook: {
        clientConfig: {
          service: { name: 'capa-webhook-service', namespace: 'capa-system', path: '/convert', port: 443 },
        },
        conversionReviewVersions: ['v1', 'v1beta1'],
      },
    });
    expect(awsClusters?.metadata.labels).to.include({
      'cluster.x-k8s.io/provider': 'infrastructure-aws',
      'cluster.x-k8s.io/v1beta1': 'v1beta1_v1beta2',
    });
    const roleIdentities = crds.find(
      ({ metadata }) => metadata.name === 'awsclusterroleidentities.infrastructure.cluster.x-k8s.io',
    );
    expect(roleIdentities?.metadata.labels).to.have.property('clusterctl.cluster.x-k8s.io/move-hierarchy', '');
  });

  it('render the three flavours with clusterctl, which both store the same', async () => {
    const { real, found } = await readBoth(KINDS);
    expect(found).to.deep.equal([]);
    expect(real.items.length).to.be.greaterThan(CLUSTERS.length);
    expect(Object.keys(CAPA_FLAVOURS)).to.have.members(CLUSTERS.map(({ flavour }) => flavour));
  });

  it('store what a follower of CAPA reads: the infrastructure, its region, identityRef and name', async () => {
    for (const backend of backends) {
      const get = async (kind: string, namespace: string, name: string) =>
        JSON.parse(await succeeded(backend, 'get', kind, '-n', namespace, name, '-o', 'json')) as {
          apiVersion: string;
          spec: Record<string, unknown>;
        };
      const plain = await get('clusters.cluster.x-k8s.io', 'tenant-a', 'plain');
      // The template writes v1beta1; with no Cluster API webhook its refs keep kind and name only.
      expect(plain.apiVersion, backend.name).to.equal('cluster.x-k8s.io/v1beta2');
      expect(plain.spec['infrastructureRef'], backend.name).to.deep.equal({ kind: 'AWSCluster', name: 'plain' });
      const awsCluster = await get('awsclusters.infrastructure.cluster.x-k8s.io', 'tenant-a', 'plain');
      expect(awsCluster.spec['region'], backend.name).to.equal('eu-west-1');
      const eks = await get('awsmanagedcontrolplanes.controlplane.cluster.x-k8s.io', 'tenant-a', 'eks-1-control-plane');
      // CAPA's defaulting webhook names it `<namespace>_<name>`; no webhook runs here, so it stays unset.
      expect(eks.spec['region'], backend.name).to.equal('us-east-2');
      expect(eks.spec, backend.name).not.to.have.property('eksClusterName');
      const nested = await get('clusters.cluster.x-k8s.io', 'tenant-b', 'nested');
      const variables = (nested.spec['topology'] as { variables: { name: string; value: unknown }[] }).variables;
      expect(variables.find(({ name }) => name === 'identityRef')?.value, backend.name).to.deep.equal({
        kind: 'AWSClusterRoleIdentity',
        name: 'nested-nested',
      });
      const identity = await get('awsclusterroleidentities.infrastructure.cluster.x-k8s.io', '', 'nested-nested');
      expect(identity.spec, backend.name).to.deep.include({
        roleARN: CAPA_TEMPLATE_VARIABLES['MULTI_TENANCY_NESTED_ROLE_ARN'],
        sourceIdentityRef: { kind: 'AWSClusterRoleIdentity', name: 'jump-nested' },
        allowedNamespaces: {},
      });
    }
  });
});
