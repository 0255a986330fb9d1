import { KubeConfig, Watch, type KubernetesObject } from '@kubernetes/client-node';
import { API_VERSION, GROUP, VERSION } from '@keymaster/api';
import { expect } from 'chai';
import { CLUSTER_FINALIZER } from '../../src/awscluster/reconciler.js';
import { CREDENTIALS_FINALIZER } from '../../src/credentials/reconciler.js';
import { IDENTITY_FINALIZER } from '../../src/awsclusteridentity/reconciler.js';
import type { Finalizer } from '../../src/kube/finalizers.js';
import { TEAM_A, eventually, gone, startPlatform, type Platform } from './harness.js';

const OTHERS = ['example.com/before', 'example.com/after'];
/** An object of an earlier release: our finalizer under its former name, between two of other controllers. */
const formerly = (finalizer: Finalizer) => [OTHERS[0]!, finalizer.formerNames[0]!, OTHERS[1]!];
const renamed = (finalizer: Finalizer) => [OTHERS[0]!, finalizer.name, OTHERS[1]!];

const cluster = (name: string, metadata: Record<string, unknown>, spec: Record<string, unknown> = {}) => ({
  apiVersion: API_VERSION,
  kind: 'AWSCluster',
  metadata: { name, namespace: 'team-a', ...metadata },
  spec: { region: 'us-west-2', ...spec },
});

describe('finalizers of an earlier release, renamed to infrastructure.keymaster.dev/<name>', function () {
  this.timeout(60_000);
  let platform: Platform;
  const watches: AbortController[] = [];

  before(async () => {
    platform = await startPlatform(TEAM_A);
  });
  after(async () => {
    for (const watch of watches) watch.abort();
    await platform.stop();
  });

  /** Creates the object, then records the finalizers of every version of it from its creation on. */
  async function createWatched(object: KubernetesObject, plural: string): Promise<string[][]> {
    const { namespace, name, resourceVersion } = (await platform.objects.create(object)).metadata!;
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(platform.kube.kubeConfig());
    const versions: string[][] = [];
    const path = `/apis/${GROUP}/${VERSION}${namespace ? `/namespaces/${namespace}` : ''}/${plural}`;
    watches.push(
      await new Watch(kubeConfig).watch(
        path,
        { resourceVersion, fieldSelector: `metadata.name=${name}` },
        (_phase, changed: KubernetesObject) => versions.push(changed.metadata?.finalizers ?? []),
        () => undefined,
      ),
    );
    return versions;
  }

  /** Every version held our finalizer under exactly one name: renamed in one write, never a moment without it. */
  const heldThroughout = (versions: string[][], finalizer: Finalizer) => {
    for (const finalizers of versions) {
      const names = [finalizer.name, ...finalizer.formerNames].filter((name) => finalizers.includes(name));
      expect(names, JSON.stringify(versions)).to.have.length(1);
    }
  };

  it("renames an AWSCluster's finalizer in one write, in place, other controllers' untouched", async () => {
    const versions = await createWatched(
      cluster('migrated', { finalizers: formerly(CLUSTER_FINALIZER) }),
      'awsclusters',
    );
    await eventually(() => expect(versions.at(-1)).to.deep.equal(renamed(CLUSTER_FINALIZER)));
    heldThroughout(versions, CLUSTER_FINALIZER);
  });

  it('still honours the former name of a cluster deleted before the rename: it is released', async () => {
    // Paused: the controller renames nothing on it before the deletion arrives.
    const paused = { annotations: { 'cluster.x-k8s.io/paused': 'true' } };
    await createWatched(
      cluster('leaving', { ...paused, finalizers: [CLUSTER_FINALIZER.formerNames[0]!] }),
      'awsclusters',
    );
    await platform.objects.delete(cluster('leaving', {}));
    await gone(() => platform.cluster('team-a', 'leaving'));
  });

  it("renames an identity's in-use finalizer while clusters use it", async () => {
    // Its user first: the identity is in use from its first reconcile on, as after an upgrade.
    await platform.objects.create(
      cluster('user', {}, { identityRef: { kind: 'AWSClusterStaticIdentity', name: 'formerly-held' } }),
    );
    const versions = await createWatched(
      {
        apiVersion: API_VERSION,
        kind: 'AWSClusterStaticIdentity',
        metadata: { name: 'formerly-held', finalizers: formerly(IDENTITY_FINALIZER) },
        spec: { secretRef: 'absent', allowedNamespaces: { list: ['team-a'] } },
      } as KubernetesObject,
      'awsclusterstaticidentities',
    );
    await eventually(() => expect(versions.at(-1)).to.deep.equal(renamed(IDENTITY_FINALIZER)));
    heldThroughout(versions, IDENTITY_FINALIZER);
  });

  it("renames an AWSCredentialsRequest's finalizer in one write", async () => {
    await platform.objects.create({
      apiVersion: API_VERSION,
      kind: 'AWSClusterRoleIdentity',
      metadata: { name: 'workloads' },
      spec: { roleARN: 'arn:aws:iam::111111111111:role/workloads', allowedNamespaces: { list: ['team-a'] } },
    } as KubernetesObject);
    const versions = await createWatched(
      {
        apiVersion: API_VERSION,
        kind: 'AWSCredentialsRequest',
        metadata: { name: 'reader', namespace: 'team-a', finalizers: formerly(CREDENTIALS_FINALIZER) },
        spec: {
          identityRef: { kind: 'AWSClusterRoleIdentity', name: 'workloads' },
          statements: [{ effect: 'Allow', actions: ['tag:GetResources'], resources: ['*'] }],
          secretRef: { name: 'reader-aws' },
        },
      } as KubernetesObject,
      'awscredentialsrequests',
    );
    await eventually(() => expect(versions.at(-1)).to.deep.equal(renamed(CREDENTIALS_FINALIZER)));
    heldThroughout(versions, CREDENTIALS_FINALIZER);
  });
});
