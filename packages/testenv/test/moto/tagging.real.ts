import { CreateTagsCommand } from '@aws-sdk/client-ec2';
import {
  API_VERSION,
  CLUSTER_NAME_TAG_KEYS,
  ownershipTagKeys,
  type AWSCluster,
  type AWSTagPolicy,
} from '@keymaster/api';
import {
  RateLimiters,
  reconcileTags,
  resolveEffectiveTags,
  tagLayers,
  tagSpecifications,
  type EffectiveTags,
  type ReconcileTagsInput,
} from '@keymaster/tagging';
import type { IdentitySession } from '@keymaster/identity';
import { expect } from 'chai';
import { awsClients, MOTO_ACCOUNT, REGION, type AwsClients } from './support/clients.js';
import { controllerIdentity, resolverFor } from './support/identities.js';
import { withMoto } from './support/moto.js';
import {
  createLoadBalancer,
  createSecurityGroup,
  createUser,
  createVolume,
  ec2Tags,
  loadBalancerTags,
  resourceId,
  runInstances,
} from './support/resources.js';

/** Discovery's GetResources: one per ownership key, and one per key that holds a cluster's name (AWS cannot OR keys). */
const DISCOVERY_QUERIES = ownershipTagKeys('any').length + CLUSTER_NAME_TAG_KEYS.length;

const CLUSTER = 'prod-1';
const [CAPA_KEY, CLOUD_PROVIDER_KEY] = ownershipTagKeys(CLUSTER) as [string, string];

function effectiveTags(global: Record<string, string>, clusterTags: Record<string, string>): EffectiveTags {
  const policy: AWSTagPolicy = {
    apiVersion: API_VERSION,
    kind: 'AWSTagPolicy',
    metadata: { name: 'default' },
    spec: { resourceTags: Object.entries(global).map(([key, value]) => ({ key, value })) },
  };
  const cluster: AWSCluster = {
    apiVersion: API_VERSION,
    kind: 'AWSCluster',
    metadata: { name: CLUSTER, namespace: 'tenant-a' },
    spec: { region: REGION, additionalTags: clusterTags },
  };
  return resolveEffectiveTags(tagLayers({ policy, identities: [], cluster }));
}

const EFFECTIVE = effectiveTags({ 'cost-center': '1000' }, { team: 'analytics' });
const EFFECTIVE_VALUES = { 'cost-center': '1000', team: 'analytics' };

describe("Keymaster's tagging against moto's resources", () => {
  const holder = withMoto();
  let clients: AwsClients;
  let session: IdentitySession;

  const PLENTY = { ratePerSecond: 1000, burst: 1000 };
  const reconcile = (input: Partial<ReconcileTagsInput> = {}) =>
    reconcileTags({
      session,
      clusterName: CLUSTER,
      regions: [REGION],
      effective: EFFECTIVE,
      // moto throttles nothing: budgets to spare, so the calls are what is compared, not the wait.
      limiters: new RateLimiters({
        budgets: { taggingReads: PLENTY, taggingWrites: PLENTY, ec2Reads: PLENTY, ec2Writes: PLENTY },
      }),
      ...input,
    });

  beforeEach(async () => {
    const { url } = holder.moto;
    const controller = await createUser(awsClients(url), 'keymaster-controller');
    clients = awsClients(url, controller);
    const resolver = resolverFor(url, controller, [controllerIdentity(['tenant-a'])], ['tenant-a']);
    session = await resolver.resolve({ namespace: 'tenant-a', region: REGION });
  });

  /** The cluster's EC2 resources as CAPA makes them, and two it must leave alone. */
  async function clusterResources() {
    const owned = { [CAPA_KEY]: 'owned' };
    const instances = await runInstances(
      clients,
      2,
      tagSpecifications(EFFECTIVE, ['instance'], { clusterName: CLUSTER, extraTags: { Name: 'prod-1-node' } }).map(
        // Created before the policy had cost-center: discovery must find what is missing.
        ({ ResourceType, Tags }) => ({ ResourceType, Tags: Tags.filter(({ Key }) => Key !== 'cost-center') }),
      ),
    );
    const volume = await createVolume(clients, MOTO_ACCOUNT, owned);
    const group = await createSecurityGroup(clients, 'prod-1-nodes', { ...owned, team: 'someone-else' });
    const shared = await createSecurityGroup(clients, 'shared-bastion', { [CAPA_KEY]: 'shared' });
    const [otherCluster] = await runInstances(clients, 1, { [ownershipTagKeys('prod-2')[0]!]: 'owned' });
    return { instances, volume, group, shared, otherCluster: otherCluster!, owned: [...instances, volume, group] };
  }

  it('discovers the owned resources, tags them in batched calls, reads them back, and leaves the rest alone', async () => {
    const { instances, volume, group, shared, otherCluster, owned } = await clusterResources();

    const result = await reconcile();

    expect(result.plan.resources.map(({ arn }) => arn).sort()).to.deep.equal([...owned].sort());
    expect(result.failed).to.deep.equal([]);
    expect(result.synced).to.equal(true);
    expect(result.applied.map(({ arn }) => arn).sort()).to.deep.equal([...owned].sort());
    expect(result.status).to.include({ resourcesDiscovered: 4, resourcesInSync: 4, resourcesFailed: 0 });
    // The discovery queries, then EC2's own calls: a CreateTags for the instances' change and one for the
    // volume's and the group's, and one DescribeTags reading all four back.
    expect(result.requests).to.deep.equal({
      'tag:GetResources': DISCOVERY_QUERIES,
      'ec2:CreateTags': 2,
      'ec2:DescribeTags': 1,
    });
    // What EC2 itself now reports: the layers' tags, and no tag of Keymaster's own.
    const live = await ec2Tags(clients, [...owned, shared, otherCluster]);
    for (const arn of instances) {
      expect(live[arn]).to.deep.equal({
        ...EFFECTIVE_VALUES,
        Name: 'prod-1-node',
        [CAPA_KEY]: 'owned',
        [CLOUD_PROVIDER_KEY]: 'owned',
      });
    }
    expect(live[volume]).to.deep.equal({ ...EFFECTIVE_VALUES, [CAPA_KEY]: 'owned' });
    expect(live[group]).to.deep.equal({ ...EFFECTIVE_VALUES, [CAPA_KEY]: 'owned' });
    expect(live[shared]).to.deep.equal({ [CAPA_KEY]: 'shared' });
    expect(live[otherCluster]).to.deep.equal({ [ownershipTagKeys('prod-2')[0]!]: 'owned' });
  });

  it("finds a load balancer by the cloud provider's ownership key; moto cannot tag it, and only it fails", async () => {
    const { owned } = await clusterResources();
    const loadBalancer = await createLoadBalancer(clients, 'prod-1-ingress', { [CLOUD_PROVIDER_KEY]: 'owned' });

    const result = await reconcile({ retry: { maxAttempts: 2, baseDelayMs: 1 } });

    expect(result.plan.resources.map(({ arn }) => arn).sort()).to.deep.equal([...owned, loadBalancer].sort());
    // moto's tagging API tags no ELBv2 ARN (docs/testenv.md); real AWS does. Keymaster reports that
    // resource, retries it as AWS's 5xx-like code asks, and tags the others.
    expect(result.failed.map(({ arn, kind, code, message }) => ({ arn, kind, code, message }))).to.deep.equal([
      {
        arn: loadBalancer,
        kind: 'Unavailable',
        code: 'InternalServiceException',
        message: 'Service not yet supported',
      },
    ]);
    expect(result.applied.map(({ arn }) => arn).sort()).to.deep.equal([...owned].sort());
    expect(result.synced).to.equal(false);
    expect(await loadBalancerTags(clients, loadBalancer)).to.deep.equal({ [CLOUD_PROVIDER_KEY]: 'owned' });
  });

  it('a second reconcile finds every resource in sync and writes nothing', async () => {
    await clusterResources();
    const first = await reconcile();

    const again = await reconcile({ managedTags: first.status.managedTags });

    expect(again.synced).to.equal(true);
    expect(again.status).to.include({ resourcesDiscovered: 4, resourcesInSync: 4, resourcesDrifted: 0 });
    expect(again.plan.resources.map(({ outcome }) => outcome)).to.deep.equal(['InSync', 'InSync', 'InSync', 'InSync']);
    expect(again.requests).to.deep.equal({ 'tag:GetResources': DISCOVERY_QUERIES });
  });

  it('a value edited with EC2 CreateTags is set back, and the plan says it drifted', async () => {
    const { volume } = await clusterResources();
    const first = await reconcile();
    await clients.ec2.send(
      new CreateTagsCommand({ Resources: [resourceId(volume)], Tags: [{ Key: 'team', Value: 'edited' }] }),
    );

    const result = await reconcile({ managedTags: first.status.managedTags });

    const planned = result.plan.resources.find(({ arn }) => arn === volume)!;
    expect(planned.update).to.deep.equal([{ key: 'team', from: 'edited', to: 'analytics', reason: 'Drift' }]);
    expect(result.applied.map(({ arn }) => arn)).to.deep.equal([volume]);
    expect((await ec2Tags(clients, [volume]))[volume]).to.include({ team: 'analytics' });
  });

  it("under Delete, a key no layer sets any more is removed with EC2's DeleteTags (by value); a key edited since is kept", async () => {
    const { instances, volume } = await clusterResources();
    const first = await reconcile({ removalPolicy: 'Delete' });
    expect(first.synced).to.equal(true);
    await clients.ec2.send(
      new CreateTagsCommand({ Resources: [resourceId(volume)], Tags: [{ Key: 'cost-center', Value: '7' }] }),
    );

    const result = await reconcile({
      effective: effectiveTags({}, { team: 'analytics' }),
      managedTags: first.status.managedTags,
      // What the cluster's ledger remembers of the first reconcile: only what Keymaster wrote goes.
      memory: first.memory,
      removalPolicy: 'Delete',
    });

    expect(result.failed).to.deep.equal([]);
    expect(result.requests['ec2:DeleteTags']).to.be.at.least(1);
    const live = await ec2Tags(clients, [...instances, volume]);
    for (const arn of instances) expect(live[arn]).to.not.have.property('cost-center');
    expect(live[volume]).to.include({ 'cost-center': '7', team: 'analytics' });
  });

  it('a dry run discovers and plans, and writes nothing', async () => {
    const { instances } = await clusterResources();

    const result = await reconcile({ dryRun: true });

    expect(result.plan.resources.filter(({ outcome }) => outcome === 'Change')).to.have.length(4);
    expect(result.applied).to.deep.equal([]);
    expect(result.requests).to.deep.equal({ 'tag:GetResources': DISCOVERY_QUERIES });
    expect((await ec2Tags(clients, instances))[instances[0]!]).to.not.have.property('cost-center');
  });

  it("230 instances: discovery reads every page, EC2's writes go 1,000 IDs a call, read-back 200 a call", async () => {
    const instances = await runInstances(clients, 230, { [CAPA_KEY]: 'owned' });

    const result = await reconcile();

    expect(result.plan.resources).to.have.length(230);
    expect(result.synced).to.equal(true);
    expect(result.requests['ec2:CreateTags']).to.equal(Math.ceil(230 / 1000));
    expect(result.requests['ec2:DescribeTags']).to.equal(Math.ceil(230 / 200));
    // Each page holds at most 100 resources (moto also ends a page at 100 tags, so it takes more): at
    // least 3 pages for the first ownership key, 1 for the second (none found).
    expect(result.requests['tag:GetResources']).to.be.at.least(3 + 1);
    const live = await ec2Tags(clients, instances);
    expect(instances.filter((arn) => live[arn]!.team !== 'analytics')).to.deep.equal([]);
  });
});
