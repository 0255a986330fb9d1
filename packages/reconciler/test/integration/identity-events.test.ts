import { API_VERSION, GROUP, IDENTITY_KINDS, VERSION, type AWSClusterRoleIdentity } from '@keymaster/api';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { expect } from 'chai';
import { keyOf, type Request } from '../../src/runtime/controller.js';
import { TENANT_KEYS, eventually, startPlatform, type Platform } from './harness.js';

const PER_GROUP = 20;
const ROLE = 'AWSClusterRoleIdentity';
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

const namespace = (name: string) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
const identity = (kind: string, name: string, spec: Record<string, unknown>) => ({
  apiVersion: API_VERSION,
  kind,
  metadata: { name },
  spec: { allowedNamespaces: {}, ...spec },
});
const role = (name: string, source?: string) =>
  identity(ROLE, name, {
    roleARN: `arn:aws:iam::111111111111:role/${name}`,
    ...(source ? { sourceIdentityRef: { kind: ROLE, name: source } } : {}),
  });
const clusters = (ns: string, prefix: string, identityRef?: { kind: string; name: string }) =>
  Array.from({ length: PER_GROUP }, (_, n) => ({
    apiVersion: API_VERSION,
    kind: 'AWSCluster',
    metadata: { name: `${prefix}-${n}`, namespace: ns },
    spec: { region: 'us-west-2', tagging: { paused: true }, ...(identityRef ? { identityRef } : {}) },
  }));
const keysOf = (objects: { metadata: { namespace: string; name: string } }[]) =>
  objects.map(({ metadata }) => `${metadata.namespace}/${metadata.name}`).sort();

/** 60 clusters: 20 through a role chain (tenant -> hub -> default), 20 on static keys, 20 on the controller identity. */
const chained = clusters('team-a', 'chained', { kind: ROLE, name: 'tenant' });
const objects = [
  namespace('team-a'),
  namespace('team-b'),
  {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'team-b-keys', namespace: 'keymaster-system' },
    stringData: { AccessKeyID: TENANT_KEYS.accessKeyId, SecretAccessKey: TENANT_KEYS.secretAccessKey },
  },
  identity('AWSClusterControllerIdentity', 'default', {}),
  identity('AWSClusterStaticIdentity', 'team-b', { secretRef: 'team-b-keys' }),
  role('hub'),
  role('other-hub'),
  role('tenant', 'hub'),
  ...chained,
  ...clusters('team-b', 'static', { kind: 'AWSClusterStaticIdentity', name: 'team-b' }),
  ...clusters('team-b', 'plain'),
];

describe('identity events among many clusters, against both emulators', function () {
  this.timeout(60_000);
  let platform: Platform;
  const enqueued = { clusters: [] as string[], identities: [] as string[] };

  const patchRole = (name: string, spec: Record<string, unknown>) =>
    platform.custom.patchClusterCustomObject(
      { group: GROUP, version: VERSION, plural: 'awsclusterroleidentities', name, body: { spec } },
      mergePatch,
    );
  const clusterCount = async (name: string) =>
    (await platform.get<AWSClusterRoleIdentity>('awsclusterroleidentities', name)).status?.clusterCount;
  /** Waits until no handler has enqueued anything for a second, then forgets what was enqueued. */
  const settled = async () => {
    let seen = -1;
    await eventually(async () => {
      const now = enqueued.clusters.length + enqueued.identities.length;
      const quiet = now === seen;
      seen = now;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(quiet).to.equal(true);
    }, 30_000);
    enqueued.clusters = [];
    enqueued.identities = [];
  };

  before(async () => {
    platform = await startPlatform(objects, ['--sync-period', '1h']);
    const { manager } = platform.controller;
    const clusters = manager.controller('awscluster')!;
    const enqueueCluster = clusters.enqueue.bind(clusters);
    clusters.enqueue = (request: Request) => {
      enqueued.clusters.push(keyOf(request));
      enqueueCluster(request);
    };
    for (const kind of IDENTITY_KINDS) {
      const controller = manager.controller(kind.toLowerCase())!;
      const enqueue = controller.enqueue.bind(controller);
      controller.enqueue = (request: Request) => {
        enqueued.identities.push(`${kind}/${request.name}`);
        enqueue(request);
      };
    }
    await eventually(async () => expect(await clusterCount('hub')).to.equal(PER_GROUP), 30_000);
  });
  after(() => platform.stop());

  it('an edit of one identity enqueues exactly the clusters whose chain reaches it, each once', async () => {
    await settled();
    await patchRole('hub', { allowedNamespaces: { list: ['team-a', 'team-c'] } });
    await eventually(() => expect(enqueued.clusters).to.have.length(PER_GROUP));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(enqueued.clusters.sort()).to.deep.equal(keysOf(chained));
    // The edited identity only: the clusters' chains still reach the same identities, whose users did not change.
    expect([...new Set(enqueued.identities)]).to.deep.equal([`${ROLE}/hub`]);
  });

  it('a chain edit moves the clusters to the new source: both sources are told and count them', async () => {
    await settled();
    await patchRole('tenant', { sourceIdentityRef: { kind: ROLE, name: 'other-hub' } });
    await eventually(async () => {
      expect(await clusterCount('other-hub')).to.equal(PER_GROUP);
      expect(await clusterCount('hub')).to.equal(0);
    });
    // Again when other-hub takes its in-use finalizer (an identity event too): still those clusters only.
    expect([...new Set(enqueued.clusters)].sort()).to.deep.equal(keysOf(chained));
    expect(new Set(enqueued.identities)).to.include.members([`${ROLE}/hub`, `${ROLE}/other-hub`, `${ROLE}/tenant`]);
    expect(enqueued.identities).to.not.include('AWSClusterStaticIdentity/team-b');
  });

  it("a Secret's change enqueues the identity reading it and the clusters reaching it, no other", async () => {
    await settled();
    await platform.core.patchNamespacedSecret(
      { name: 'team-b-keys', namespace: 'keymaster-system', body: { metadata: { labels: { rotated: 'yes' } } } },
      mergePatch,
    );
    const statics = keysOf(clusters('team-b', 'static'));
    await eventually(() => expect(enqueued.clusters).to.have.length(PER_GROUP));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(enqueued.clusters.sort()).to.deep.equal(statics);
    expect([...new Set(enqueued.identities)]).to.deep.equal(['AWSClusterStaticIdentity/team-b']);
  });
});
