import { API_VERSION, type AWSCluster } from '@keymaster/api';
import { KubeConfig, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { expect } from 'chai';
import { planCluster, planClusters } from '../../src/inspect/cluster-plan.js';
import { explainCluster } from '../../src/inspect/explain.js';
import { createInspectContext, type InspectContext } from '../../src/inspect/context.js';
import {
  CONTROLLER_KEYS,
  TENANT_A_KEYS_SECRET,
  eventually,
  startPlatform,
  staticTenantA,
  type Platform,
} from '../integration/harness.js';

const STATIC_REF = { kind: 'AWSClusterStaticIdentity', name: 'tenant-a' };
const cluster = (namespace: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: API_VERSION,
  kind: 'AWSCluster',
  metadata: { name: 'prod', namespace },
  spec: { region: 'us-west-2', identityRef: STATIC_REF, ...spec },
});

describe('planCluster: the claim of a cluster name and the binding of the account, as the controller decides them', function () {
  this.timeout(60_000);
  let platform: Platform;
  let context: InspectContext;

  before(async () => {
    // Two tenants name their cluster "prod" and act in one account (222222222222) through one identity.
    platform = await startPlatform([
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } },
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-b' } },
      TENANT_A_KEYS_SECRET,
      staticTenantA(),
      cluster('team-a', { additionalTags: { team: 'a' } }),
      cluster('team-b', { additionalTags: { team: 'b' }, tagging: { removalPolicy: 'Delete' } }),
    ]);
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(platform.kube.kubeConfig());
    context = inspectContext(kubeConfig);
  });
  after(() => platform.stop());

  /** A context as one command has it: it reads each object once. */
  const inspectContext = (kubeConfig: KubeConfig) =>
    createInspectContext({
      kubeConfig,
      controllerNamespace: 'keymaster-system',
      stsRegion: 'us-east-1',
      layerGracePeriodMs: 0,
      tenantLabel: 'keymaster.dev/tenant',
      aws: { endpoint: platform.aws.url, credentials: () => Promise.resolve(CONTROLLER_KEYS) },
    });

  it('gives the owner its plan, and the other cluster of the name no plan and nothing of the resources', async () => {
    const [a, b] = await eventually(async () => {
      const both = await Promise.all([platform.cluster('team-a', 'prod'), platform.cluster('team-b', 'prod')]);
      for (const item of both)
        expect(item.status?.conditions?.find(({ type }) => type === 'ClusterNameUnique')).to.exist;
      return both;
    });
    const age = (item: AWSCluster) => `${item.metadata.creationTimestamp}\0${item.metadata.uid}`;
    const [owner, other] = age(a) < age(b) ? [a, b] : [b, a];

    const refused = await planCluster(context, other);
    expect(refused).to.deep.include({ outcome: 'ClusterNameClaimed', accountId: '222222222222' });
    expect(refused.failure?.code).to.equal('ERR_KEYMASTER_TAGGING_CLUSTER_NAME_CLAIMED');
    expect(refused).to.not.have.any.keys('plan', 'changes', 'summary');
    expect(JSON.stringify(refused), "the owner's resources").to.not.include('i-0000000000000000b');

    const planned = await planCluster(context, owner);
    expect(planned.outcome).to.equal('Planned');
    expect(planned.plan?.resources.map(({ arn }) => arn)).to.deep.equal([
      'arn:aws:ec2:us-west-2:222222222222:instance/i-0000000000000000b',
    ]);
  });

  it("plan and explain refuse a cluster whose identity is a tenant's in an account not bound to that tenant, as the controller does", async () => {
    const group = { group: 'infrastructure.keymaster.dev', version: 'v1beta1' };
    await platform.custom.patchClusterCustomObject(
      {
        ...group,
        plural: 'awsclusterstaticidentities',
        name: 'tenant-a',
        body: { metadata: { labels: { 'keymaster.dev/tenant': 'tenant-a' } } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(platform.kube.kubeConfig());
    const owner = await platform.cluster('team-a', 'prod');
    const refused = await planCluster(inspectContext(kubeConfig), owner);
    expect(refused).to.deep.include({ outcome: 'Refused', accountId: '222222222222' });
    expect(refused.failure).to.deep.include({ code: 'ERR_KEYMASTER_ACCOUNT_NOT_BOUND' });
    expect(refused.failure?.message).to.include(
      'an AWSAccountBinding named 222222222222 with tenant-a in spec.tenants',
    );
    expect(refused).to.not.have.any.keys('plan', 'changes', 'summary');
    const explained = await explainCluster(inspectContext(kubeConfig), owner);
    expect(explained.chain[0]?.problems.map(({ code }) => code)).to.deep.equal(['ERR_KEYMASTER_ACCOUNT_NOT_BOUND']);
    expect(explained.fixes).to.deep.equal([`AWSClusterStaticIdentity/tenant-a: ${refused.failure?.message ?? ''}`]);

    await platform.custom.createClusterCustomObject({
      ...group,
      plural: 'awsaccountbindings',
      body: {
        apiVersion: API_VERSION,
        kind: 'AWSAccountBinding',
        metadata: { name: '222222222222' },
        spec: { tenants: ['tenant-a'] },
      },
    });
    expect((await planCluster(inspectContext(kubeConfig), owner)).outcome).to.not.equal('Refused');
  });

  it('plan and explain show a policy that selects the cluster as its own layer, with its provenance', async () => {
    const group = { group: 'infrastructure.keymaster.dev', version: 'v1beta1' };
    await platform.custom.createClusterCustomObject({
      ...group,
      plural: 'awstagpolicies',
      body: {
        apiVersion: API_VERSION,
        kind: 'AWSTagPolicy',
        metadata: { name: 'prod' },
        spec: { clusterSelector: { matchLabels: { env: 'prod' } }, resourceTags: [{ key: 'tier', value: 'prod' }] },
      },
    });
    const [a, b] = await Promise.all([platform.cluster('team-a', 'prod'), platform.cluster('team-b', 'prod')]);
    const age = (item: AWSCluster) => `${item.metadata.creationTimestamp}\0${item.metadata.uid}`;
    const [owner, other] = age(a) < age(b) ? [a, b] : [b, a];
    await platform.custom.patchNamespacedCustomObject(
      {
        ...group,
        plural: 'awsclusters',
        namespace: owner.metadata.namespace!,
        name: 'prod',
        body: { metadata: { labels: { env: 'prod' } } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    const labelled = await platform.cluster(owner.metadata.namespace!, 'prod');
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(platform.kube.kubeConfig());

    const explained = await explainCluster(inspectContext(kubeConfig), labelled);
    expect(explained.layers.map(({ layer, object }) => `${layer} ${object}`)).to.include('Selected AWSTagPolicy/prod');
    expect(explained.winners['tier']).to.deep.equal({
      layer: 'Selected',
      object: 'AWSTagPolicy/prod',
      value: 'prod',
      overridePolicy: 'Allow',
    });
    const planned = await planCluster(inspectContext(kubeConfig), labelled);
    expect(planned.plan?.tags['tier']).to.deep.include({ layer: 'Selected', object: 'AWSTagPolicy/prod' });
    const unlabelled = await explainCluster(inspectContext(kubeConfig), other);
    expect(unlabelled.layers.map(({ layer }) => layer)).to.not.include('Selected');
  });
});

describe('planClusters', () => {
  it('plans no further cluster once its signal aborted: an asker gone costs nothing more', async () => {
    const gone = new AbortController();
    gone.abort();
    const clusters = [{ metadata: { namespace: 'a', name: 'one' } }, { metadata: { namespace: 'a', name: 'two' } }];
    // The context is never touched: reading it would throw.
    const untouched = new Proxy({} as InspectContext, {
      get: (_, key) => {
        throw new Error(`read ${String(key)}`);
      },
    });
    expect(await planClusters(untouched, clusters as AWSCluster[], { signal: gone.signal })).to.deep.equal([]);
  });
});
