import { expect } from 'chai';
import type { ResourceSpec } from '@keymaster/aws-emulator';
import { MANAGEMENT, TAGGER, accessKey, clusterResources, controllerUser } from './support/aws-world.js';
import { eventually } from './support/eventually.js';
import {
  awsCluster,
  keysSecret,
  namespace,
  selectedTagPolicy,
  staticIdentity,
  staticRef,
  tagPolicy,
} from './support/objects.js';
import { startScenario, stopScenarios, type Scenario } from './support/scenario.js';

const ACCOUNT = '222222222222';
const REGION = 'us-west-2';
const KEY = accessKey('tag-selection/fleet');

const prodPolicy = selectedTagPolicy('prod', { clusterSelector: { matchLabels: { env: 'prod' } } }, [
  { key: 'tier', value: 'prod' },
  { key: 'retention', value: '90d' },
]);
const pciPolicy = selectedTagPolicy('pci', { clusterSelector: { matchLabels: { pci: 'true' } }, precedence: 10 }, [
  { key: 'tier', value: 'pci' },
  { key: 'compliance', value: 'pci-dss' },
]);
const paymentsPolicy = selectedTagPolicy('payments', { namespaceSelector: { matchLabels: { team: 'payments' } } }, [
  { key: 'owner', value: 'payments' },
  { key: 'data-class', value: 'restricted', overridePolicy: 'Deny' },
]);

/** The payments ledger's third resource already carried compliance=pci-dss, set by someone else. */
const ledgerResources: ResourceSpec[] = clusterResources(ACCOUNT, REGION, 'ledger', 3).map((resource, index) =>
  index === 2 ? { ...resource, tags: { ...resource.tags, compliance: 'pci-dss' } } : resource,
);
const shop = clusterResources(ACCOUNT, REGION, 'shop', 2);
const sandbox = clusterResources(ACCOUNT, REGION, 'sandbox', 2);

const ledgerCluster = {
  ...awsCluster('payments', 'ledger', {
    region: REGION,
    identityRef: staticRef('fleet'),
    additionalTags: { 'data-class': 'public' },
    tagging: { removalPolicy: 'Delete' },
  }),
  metadata: { name: 'ledger', namespace: 'payments', labels: { env: 'prod', pci: 'true' } },
};

describe('tags: policies that select clusters by labels', function () {
  let scenario: Scenario;

  async function eventuallyTagged(resources: ResourceSpec[], tags: Record<string, string>, absent: string[] = []) {
    await eventually(() => {
      for (const { arn } of resources) {
        const live = scenario.aws.tags(arn);
        expect(live, arn).to.include(tags);
        for (const key of absent) expect(live, `${arn} ${key}`).not.to.have.property(key);
      }
    });
  }

  before(async function () {
    scenario = await startScenario({
      world: {
        accounts: [
          { id: MANAGEMENT, users: [controllerUser()] },
          {
            id: ACCOUNT,
            users: [{ name: 'fleet-automation', accessKeys: [KEY], allow: TAGGER }],
            resources: [...ledgerResources, ...shop, ...sandbox],
          },
        ],
      },
      objects: [
        namespace('payments', { team: 'payments' }),
        namespace('web'),
        tagPolicy([{ key: 'cost-center', value: 'platform' }]),
        prodPolicy,
        pciPolicy,
        paymentsPolicy,
        keysSecret('fleet-keys', KEY),
        staticIdentity('fleet', 'fleet-keys', { list: ['payments', 'web'] }),
        ledgerCluster,
        {
          ...awsCluster('web', 'shop', { region: REGION, identityRef: staticRef('fleet') }),
          metadata: { name: 'shop', namespace: 'web', labels: { env: 'prod' } },
        },
        awsCluster('web', 'sandbox', { region: REGION, identityRef: staticRef('fleet') }),
      ],
      syncPeriod: '2s',
      // The selected layer stands 2 seconds after its policies were created: removal is then allowed.
      args: ['--tag-layer-grace-period', '2s'],
    });
    await scenario.kube.untilReady(3);
  });

  after(stopScenarios);

  it('tags each cluster with the policies its labels and its namespace select, the right one winning', async function () {
    // Both label-selected policies and the namespace-selected one: pci outranks prod, the namespace's Deny holds.
    await eventuallyTagged(ledgerResources.slice(0, 2), {
      'cost-center': 'platform',
      tier: 'pci',
      retention: '90d',
      compliance: 'pci-dss',
      owner: 'payments',
      'data-class': 'restricted',
    });
    await eventuallyTagged(shop, { 'cost-center': 'platform', tier: 'prod', retention: '90d' }, [
      'compliance',
      'owner',
      'data-class',
    ]);
    await eventuallyTagged(sandbox, { 'cost-center': 'platform' }, ['tier', 'retention', 'owner']);
    const status = (await scenario.kube.cluster('payments', 'ledger')).status?.tagging;
    expect(status?.conflicts).to.deep.include.members([
      {
        key: 'tier',
        winner: { layer: 'Selected', object: 'AWSTagPolicy/pci', value: 'pci', overridePolicy: 'Allow' },
        loser: { layer: 'Selected', object: 'AWSTagPolicy/prod', value: 'prod', overridePolicy: 'Allow' },
      },
      {
        key: 'data-class',
        winner: { layer: 'Selected', object: 'AWSTagPolicy/payments', value: 'restricted', overridePolicy: 'Deny' },
        loser: { layer: 'Cluster', object: 'AWSCluster payments/ledger', value: 'public' },
      },
    ]);
  });

  it('a label removed removes, after the grace period, only what Keymaster wrote from the policy it left', async function () {
    await scenario.kube.patch(ledgerCluster, { metadata: { labels: { pci: null } } });
    await eventuallyTagged(ledgerResources.slice(0, 2), { tier: 'prod', owner: 'payments' }, ['compliance']);
    // The value someone else set before Keymaster stays: Keymaster never wrote it there.
    expect(scenario.aws.tags(ledgerResources[2]!.arn)).to.include({ compliance: 'pci-dss', tier: 'prod' });
    // The other clusters were not touched by the relabelling.
    expect(scenario.aws.tags(shop[0]!.arn)).to.include({ tier: 'prod' });
  });

  it('a selected policy edited re-tags the clusters it selects and no other', async function () {
    scenario.aws.emulator.calls.reset();
    await scenario.kube.patch(prodPolicy, {
      spec: {
        resourceTags: [
          { key: 'tier', value: 'prod' },
          { key: 'retention', value: '365d' },
        ],
      },
    });
    await eventuallyTagged([...ledgerResources, ...shop], { retention: '365d' });
    expect(scenario.aws.tags(sandbox[0]!.arn)).not.to.have.key('retention');
  });
});
