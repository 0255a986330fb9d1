import { expect } from 'chai';
import type { ResourceSpec } from '@keymaster/aws-emulator';
import {
  HUB_ROLE,
  MANAGEMENT,
  TAGGER,
  accessKey,
  clusterResources,
  controllerUser,
  hubRole,
  roleArn,
  tenantRole,
  userArn,
} from './support/aws-world.js';
import { eventually } from './support/eventually.js';
import { condition, isReady } from './support/kube.js';
import {
  awsCluster,
  controllerIdentity,
  keysSecret,
  namespace,
  roleIdentity,
  roleRef,
  staticIdentity,
  staticRef,
  tagPolicy,
} from './support/objects.js';
import { startScenario, stopScenarios, type Scenario } from './support/scenario.js';

const TEAM_ACCOUNT = '222222222222';
const TEAM_Y_ACCOUNT = '333333333333';
const TEAM_KEY = accessKey('tags/team-x');

const web = clusterResources(TEAM_ACCOUNT, 'us-west-2', 'web', 3);
const api = [
  ...clusterResources(TEAM_ACCOUNT, 'us-west-2', 'api', 3),
  ...clusterResources(TEAM_ACCOUNT, 'eu-central-1', 'api', 2),
  // Found through the other ownership tag.
  {
    arn: `arn:aws:ec2:us-west-2:${TEAM_ACCOUNT}:subnet/subnet-0a1b2c3d4e5f60718`,
    tags: { 'kubernetes.io/cluster/api': 'owned' },
  },
];
/** Team Y's cluster acts through a role chained on the hub: both links are tag layers. */
const jobs = clusterResources(TEAM_Y_ACCOUNT, 'us-east-1', 'jobs', 2);
/** A resource of another cluster in the same account: no layer of these clusters may touch it. */
const stranger = clusterResources(TEAM_ACCOUNT, 'us-west-2', 'stranger', 1)[0]!;

const policy = (extra: { key: string; value: string }[] = []) =>
  tagPolicy([
    { key: 'cost-center', value: 'platform' },
    { key: 'platform-managed', value: 'true', overridePolicy: 'Deny' },
    ...extra,
  ]);
const identityTags = (owner: string) => [
  { key: 'tenant', value: 'x', overridePolicy: 'Deny' as const },
  { key: 'cost-center', value: 'x-eng' },
  { key: 'owner', value: owner },
];
const identity = staticIdentity('team-x', 'team-x-keys', { list: ['team-x'] }, identityTags('platform'));
const hubTags = (billing: string) => [
  { key: 'owner', value: 'hub' },
  { key: 'billing', value: billing, overridePolicy: 'Deny' as const },
];
const hub = roleIdentity('keymaster-hub', {
  roleARN: HUB_ROLE,
  allowedNamespaces: {},
  resourceTags: hubTags('central'),
});
const webCluster = awsCluster('team-x', 'web', {
  region: 'us-west-2',
  identityRef: staticRef('team-x'),
  additionalTags: { team: 'web', 'cost-center': 'web-1', 'platform-managed': 'false', tier: 'gold' },
  tagging: { removalPolicy: 'Retain' },
});
const apiCluster = awsCluster('team-x', 'api', {
  region: 'us-west-2',
  identityRef: staticRef('team-x'),
  additionalTags: { team: 'api', tenant: 'api-team' },
  tagging: { removalPolicy: 'Delete', extraRegions: ['eu-central-1'] },
});

/** Waits until every resource carries `tags` (and keeps the tags Keymaster does not manage). */
async function eventuallyTagged(scenario: Scenario, resources: ResourceSpec[], tags: Record<string, string>) {
  await eventually(() => {
    for (const { arn, tags: original } of resources) {
      const live = scenario.aws.tags(arn);
      expect(live, arn).to.include(tags);
      for (const [key, value] of Object.entries(original ?? {}))
        if (!(key in tags)) expect(live[key], `${arn}: ${key}`).to.equal(value);
    }
  });
}

describe('tags: layers, precedence, edits, drift and removal', function () {
  let scenario: Scenario;

  before(async function () {
    scenario = await startScenario({
      world: {
        accounts: [
          { id: MANAGEMENT, users: [controllerUser()], roles: [hubRole()] },
          { id: TEAM_Y_ACCOUNT, roles: [tenantRole('team-y-admin', HUB_ROLE)], resources: jobs },
          {
            id: TEAM_ACCOUNT,
            users: [{ name: 'team-x-automation', accessKeys: [TEAM_KEY], allow: TAGGER }],
            resources: [...web, ...api, stranger],
          },
        ],
      },
      objects: [
        namespace('team-x'),
        controllerIdentity({}),
        policy(),
        keysSecret('team-x-keys', TEAM_KEY),
        identity,
        webCluster,
        apiCluster,
        namespace('team-y'),
        hub,
        roleIdentity('team-y', {
          roleARN: roleArn(TEAM_Y_ACCOUNT, 'team-y-admin'),
          sourceIdentityRef: roleRef('keymaster-hub'),
          allowedNamespaces: { list: ['team-y'] },
          resourceTags: [{ key: 'owner', value: 'team-y' }],
        }),
        awsCluster('team-y', 'jobs', {
          region: 'us-east-1',
          identityRef: roleRef('team-y'),
          additionalTags: { team: 'jobs' },
        }),
      ],
      syncPeriod: '2s',
    });
    await scenario.kube.untilReady(3);
  });

  after(stopScenarios);

  it('applies the three layers with their precedence, and leaves other tags alone', async function () {
    await eventuallyTagged(scenario, web, {
      'platform-managed': 'true', // the global Deny beats the cluster's "false"
      'cost-center': 'web-1', // the cluster beats the account and the global Allow
      tenant: 'x',
      owner: 'platform',
      team: 'web',
      tier: 'gold',
    });
    await eventuallyTagged(scenario, api, {
      'platform-managed': 'true',
      'cost-center': 'x-eng', // the account beats the global Allow
      tenant: 'x', // the account's Deny beats the cluster's "api-team"
      owner: 'platform',
      team: 'api',
    });
    await eventuallyTagged(scenario, jobs, {
      'platform-managed': 'true',
      'cost-center': 'platform',
      owner: 'team-y', // the link nearest the cluster wins...
      billing: 'central', // ...unless a farther one says Deny
      team: 'jobs',
    });
    expect(scenario.aws.tags(stranger.arn)).to.deep.equal(stranger.tags);
    const status = (await scenario.kube.cluster('team-x', 'api')).status?.tagging;
    expect(status).to.include({ resourcesDiscovered: api.length, resourcesInSync: api.length });
    expect(status?.managedTags).to.deep.equal({
      'platform-managed': 'true',
      'cost-center': 'x-eng',
      tenant: 'x',
      owner: 'platform',
      team: 'api',
    });
  });

  it('settles a Deny conflict by policy: Ready, listed in status, a Warning event naming both sources', async function () {
    const cluster = await scenario.kube.cluster('team-x', 'web');
    expect(condition(cluster, 'Ready')).to.include({ status: 'True' });
    expect(condition(cluster, 'TagsInSync')).to.include({ status: 'True' });
    expect(cluster.status?.tagging?.conflicts).to.deep.include({
      key: 'platform-managed',
      winner: { layer: 'Global', object: 'AWSTagPolicy/default', value: 'true', overridePolicy: 'Deny' },
      loser: { layer: 'Cluster', object: 'AWSCluster team-x/web', value: 'false' },
    });
    const events = await eventually(async () => {
      const found = (await scenario.kube.events('team-x', 'web')).filter(
        ({ reason, message }) => reason === 'TagConflict' && message?.includes('platform-managed'),
      );
      expect(found).to.have.length(1);
      return found;
    });
    expect(events[0]!.type).to.equal('Warning');
    expect(events[0]!.message).to.include('AWSTagPolicy/default').and.include('AWSCluster team-x/web');
  });

  it("propagates an edit of a cluster's additionalTags to all its resources, and only to them", async function () {
    await scenario.kube.patch(webCluster, { spec: { additionalTags: { team: 'frontend' } } });
    await eventuallyTagged(scenario, web, { team: 'frontend' });
    for (const { arn } of api) expect(scenario.aws.tags(arn)).to.include({ team: 'api' });
    await eventually(async () => {
      const applied = (await scenario.kube.events('team-x', 'web')).filter(({ reason }) => reason === 'TagsApplied');
      expect(applied.map(({ message }) => message).join('\n')).to.include('team');
    });
  });

  it("propagates an edit of an identity's resourceTags to every cluster whose chain holds it", async function () {
    await scenario.kube.patch(identity, { spec: { resourceTags: identityTags('sre') } });
    await scenario.kube.patch(hub, { spec: { resourceTags: hubTags('central-2') } });
    await eventuallyTagged(scenario, [...web, ...api], { owner: 'sre' });
    await eventuallyTagged(scenario, jobs, { billing: 'central-2', owner: 'team-y' });
  });

  it('propagates an edit of the AWSTagPolicy to every cluster, in every region', async function () {
    await scenario.kube.patch(policy(), policy([{ key: 'compliance', value: 'pci' }]));
    await eventuallyTagged(scenario, [...web, ...api, ...jobs], { compliance: 'pci' });
    expect(scenario.aws.tags(stranger.arn)).to.deep.equal(stranger.tags);
  });

  it('sets back drift made outside Keymaster at the next resync, and says so in an event', async function () {
    const [instance] = web;
    const farAway = api[3]!; // in eu-central-1
    const { 'platform-managed': _, ...withoutEnforced } = scenario.aws.tags(instance!.arn);
    await scenario.aws.setTags(instance!.arn, { ...withoutEnforced, team: 'hacked' });
    await scenario.aws.setTags(farAway.arn, { ...scenario.aws.tags(farAway.arn), tenant: 'someone-else' });
    await eventuallyTagged(scenario, [instance!], { team: 'frontend', 'platform-managed': 'true' });
    await eventuallyTagged(scenario, [farAway], { tenant: 'x' });
    await eventually(async () => {
      const corrected = (await scenario.kube.events('team-x', 'web')).filter(
        ({ reason }) => reason === 'TagDriftCorrected',
      );
      expect(corrected.map(({ message }) => message).join('\n')).to.include('"hacked"');
    });
  });

  it('reported each conflict once, not again at every resync since', async function () {
    const conflicts = (await scenario.kube.events('team-x', 'web')).filter(({ reason }) => reason === 'TagConflict');
    expect(conflicts).not.to.be.empty;
    for (const event of conflicts) expect(event.count, event.message).to.equal(1);
  });

  it('Retain: a key no layer sets any more stays on the resources and is no longer managed', async function () {
    await scenario.kube.patch(webCluster, { spec: { additionalTags: { tier: null } } });
    await eventually(async () => {
      const status = (await scenario.kube.cluster('team-x', 'web')).status?.tagging;
      expect(status?.managedTags).not.to.have.key('tier');
    });
    for (const { arn } of web) expect(scenario.aws.tags(arn)).to.include({ tier: 'gold' });
    const [instance] = web;
    // A drift set back first: a reconcile that began after the edit has run (under load, one begun before
    // it was once seen writing tier back; not explained yet, see the closing note of issue 11).
    await scenario.aws.setTags(instance!.arn, { ...scenario.aws.tags(instance!.arn), team: 'hacked' });
    await eventuallyTagged(scenario, [instance!], { team: 'frontend' });
    // Someone else may own it now: editing it is not drift, while editing a managed key still is.
    await scenario.aws.setTags(instance!.arn, { ...scenario.aws.tags(instance!.arn), tier: 'silver', team: 'hacked' });
    await eventuallyTagged(scenario, [instance!], { team: 'frontend' });
    expect(scenario.aws.tags(instance!.arn)).to.include({ tier: 'silver' });
  });

  it('Delete: a dropped key is removed where it still has the value Keymaster applied, and left where someone changed it', async function () {
    // Paused, Keymaster leaves the tags alone, so the hand edit below survives until the key is dropped.
    await scenario.kube.patch(apiCluster, { spec: { tagging: { paused: true } } });
    await eventually(async () => {
      const cluster = await scenario.kube.cluster('team-x', 'api');
      expect(condition(cluster, 'TagsInSync')).to.include({ status: 'False', reason: 'TaggingPaused' });
    });
    const [edited, ...untouched] = api;
    await scenario.aws.setTags(edited!.arn, { ...scenario.aws.tags(edited!.arn), team: 'hand-edited' });
    await scenario.kube.patch(apiCluster, { spec: { tagging: { paused: false }, additionalTags: { team: null } } });

    await eventually(async () => {
      const cluster = await scenario.kube.cluster('team-x', 'api');
      expect(isReady(cluster)).to.equal(true);
      expect(cluster.status?.tagging?.managedTags).not.to.have.key('team');
      for (const { arn } of untouched) expect(scenario.aws.tags(arn), arn).not.to.have.key('team');
    });
    expect(scenario.aws.tags(edited!.arn)).to.include({ team: 'hand-edited', owner: 'sre', compliance: 'pci' });
    // The instances' removal goes through EC2's DeleteTags.
    expect(scenario.aws.emulator.calls.summary().byCaller[userArn(TEAM_ACCOUNT, 'team-x-automation')]).to.have.property(
      'ec2:DeleteTags',
    );
  });
});
