import { expect } from 'chai';
import { formatPlan, planTags, resolveEffectiveTags, tagLayers } from '../../src/index.js';
import { cluster, instanceArn, memoryOf, owned, planFor, policy, roleIdentity } from '../fixtures.js';

const ARN = 'arn:aws:ec2:eu-west-1:111122223333';
const appTags = Object.fromEntries(Array.from({ length: 47 }, (_, i) => [`app-${i}`, 'x']));

/** The example of docs/tagging.md. */
const examplePlan = () =>
  planTags({
    clusterName: 'analytics-dev',
    effective: resolveEffectiveTags(
      tagLayers({
        policy: policy([
          { key: 'red-hat-managed', value: 'true', overridePolicy: 'Deny' },
          { key: 'cost-center', value: '1000' },
        ]),
        identities: [
          roleIdentity('tenant-b', [
            { key: 'tenant', value: 'b', overridePolicy: 'Deny' },
            { key: 'cost-center', value: '4200' },
          ]),
        ],
        cluster: cluster({ 'red-hat-managed': 'false', team: 'analytics', Name: 'dev' }),
      }),
    ),
    managedTags: {
      'red-hat-managed': 'true',
      tenant: 'b',
      'cost-center': '1000',
      team: 'analytics',
      owner: 'alice',
      legacy: 'x',
    },
    removalPolicy: 'Delete',
    memory: memoryOf({ [`${ARN}:instance/i-0a1`]: { Cluster: { owner: 'alice', legacy: 'x' } } }),
    resources: {
      [`${ARN}:instance/i-0a1`]: {
        ...owned(),
        'red-hat-managed': 'false',
        tenant: 'b',
        'cost-center': '1000',
        team: 'analytics',
        owner: 'alice',
        legacy: 'y',
      },
      [`${ARN}:volume/vol-0b2`]: {
        ...owned(),
        'red-hat-managed': 'true',
        tenant: 'b',
        'cost-center': '4200',
        team: 'analytics',
      },
      [`${ARN}:security-group/sg-0c3`]: { ...owned(), ...appTags },
      [`${ARN}:vpc/vpc-0d4`]: owned('shared'),
      'arn:aws:s3:::analytics-dev-ignition': owned(),
    },
  });

describe('formatPlan', () => {
  it('renders the effective tags, conflicts, problems and every changed or skipped resource', () => {
    expect(formatPlan(examplePlan())).to.equal(
      [
        'Tag plan for cluster analytics-dev (removal policy Delete, shared resources skipped)',
        'Effective tags (4):',
        '  cost-center = "4200"  from AWSClusterRoleIdentity/tenant-b (Account)',
        '  red-hat-managed = "true"  from AWSTagPolicy/default (Global, Deny)',
        '  team = "analytics"  from AWSCluster tenant-b/analytics-dev (Cluster)',
        '  tenant = "b"  from AWSClusterRoleIdentity/tenant-b (Account, Deny)',
        'Conflicts (2):',
        '  cost-center: "4200" from AWSClusterRoleIdentity/tenant-b (Account) wins over "1000" from AWSTagPolicy/default (Global)',
        '  red-hat-managed: "true" from AWSTagPolicy/default (Global, Deny) wins over "false" from AWSCluster tenant-b/analytics-dev (Cluster)',
        'Tags left out (1):',
        '  Cluster layer, AWSCluster tenant-b/analytics-dev, key "Name": the key "Name" is reserved for the platform (rule ReservedKey)',
        'Resources: 5 discovered, 1 to change, 1 over the tag limit, 1 in sync, 2 skipped',
        '  (+ add, ~ update, - remove, ! left as it is)',
        `  change ${ARN}:instance/i-0a1`,
        '      ~ cost-center: "1000" -> "4200" (the layers changed it)',
        '      ~ red-hat-managed: "false" -> "true" (edited outside Keymaster)',
        '      - owner = "alice"',
        '      ! legacy = "y" left in place: Keymaster applied "x", someone changed it since',
        `  over-limit ${ARN}:security-group/sg-0c3`,
        '      ! not added, the resource would carry 53 user tags and AWS allows 50: ' +
          'cost-center = "4200", red-hat-managed = "true", team = "analytics", tenant = "b"',
        `  skip ${ARN}:vpc/vpc-0d4: the resource is shared with other clusters; includeShared would tag it (Shared)`,
        '  skip arn:aws:s3:::analytics-dev-ignition: the ARN carries no region and discovery gave none (UnknownRegion)',
        '  (1 in sync, not shown)',
      ].join('\n'),
    );
  });

  it('lists resources in sync when asked to', () => {
    const text = formatPlan(examplePlan(), { showInSync: true });
    expect(text).to.contain(`  in-sync ${ARN}:volume/vol-0b2`);
    expect(text).not.to.contain('not shown');
  });

  it('says so when there are no effective tags, and quotes values so that empty ones show', () => {
    expect(formatPlan(planFor({ resources: { [instanceArn('i-1')]: owned() } }))).to.equal(
      [
        'Tag plan for cluster analytics-dev (removal policy Retain, shared resources skipped)',
        'Effective tags: none',
        'Resources: 1 discovered, 0 to change, 0 over the tag limit, 1 in sync, 0 skipped',
        '  (1 in sync, not shown)',
      ].join('\n'),
    );
    const text = formatPlan(planFor({ clusterTags: { flag: '' }, resources: { [instanceArn('i-1')]: owned() } }));
    expect(text).to.contain('  flag = ""  from').and.contain('      + flag = ""');
  });
});
