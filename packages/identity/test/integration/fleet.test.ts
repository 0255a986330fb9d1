import { ResourceGroupsTaggingAPIClient } from '@aws-sdk/client-resource-groups-tagging-api';
import { startAwsEmulator, type AccountSpec } from '@keymaster/aws-emulator';
import { expect } from 'chai';
import { controller, role } from '../fixtures.js';
import { Platform, resolverOn } from './harness.js';
import { CONTROLLER_KEYS, MANAGEMENT, world } from './world.js';

const CONTROLLER_ARN = `arn:aws:iam::${MANAGEMENT}:user/keymaster-controller`;
const HUB_ARN = `arn:aws:iam::${MANAGEMENT}:role/keymaster-hub`;
const REGIONS = ['us-east-1', 'eu-west-1'];
const WORKERS = 16;
/** Every third tenant's role is chained through the hub with an externalID. */
const chained = (index: number) => index % 3 === 2;
const tenant = (index: number) => `fleet-${String(index).padStart(4, '0')}`;
const account = (index: number) => String(400_000_000_000 + index);

/**
 * A fleet of `identities` tenants, each with its own role in its own account (trusting the controller,
 * or the hub with an externalID), and one AWSCluster per tenant and region. Every identity allows
 * `sharedNamespace` too, if given.
 */
function fleet(identities: number, sharedNamespace?: string) {
  const also = sharedNamespace ? [sharedNamespace] : [];
  const platform = new Platform();
  const accounts: AccountSpec[] = [];
  const clusters = [];
  const chainedTenants = [];
  for (let index = 0; index < identities; index++) {
    const name = tenant(index);
    const roleARN = `arn:aws:iam::${account(index)}:role/keymaster`;
    const externalID = `external-${name}`;
    platform.put(
      role(name, {
        roleARN,
        allowedNamespaces: { list: [name, ...also] },
        ...(chained(index)
          ? { externalID, sourceIdentityRef: { kind: 'AWSClusterRoleIdentity', name: 'keymaster-hub' } }
          : {}),
      }),
    );
    if (chained(index)) chainedTenants.push(name);
    platform.namespaces.set(name, { name, labels: {} });
    accounts.push({
      id: account(index),
      roles: [
        {
          name: 'keymaster',
          trust: [chained(index) ? { principal: HUB_ARN, externalId: externalID } : { principal: CONTROLLER_ARN }],
          allow: ['sts:GetCallerIdentity', 'tag:*'],
        },
      ],
    });
    for (const region of REGIONS)
      clusters.push({
        namespace: name,
        identityRef: { kind: 'AWSClusterRoleIdentity' as const, name },
        region,
        holder: `AWSCluster/${name}/${region}`,
      });
  }
  platform.put(role('keymaster-hub', { roleARN: HUB_ARN, allowedNamespaces: { list: [...chainedTenants, ...also] } }));
  platform.put(controller({ list: [...platform.namespaces.keys(), ...also] }));
  for (const namespace of also) platform.namespaces.set(namespace, { name: namespace, labels: {} });
  const base = world();
  // Resolves come faster than a controller's here: STS's 600 calls/s per account would throttle what this test counts.
  return { platform, clusters, world: { ...base, accounts: [...base.accounts, ...accounts], quotas: 'off' as const } };
}

describe('IdentityResolver: a fleet of role identities, against the aws-emulator', function () {
  this.timeout(300_000);

  // 2,000 is issue 27's fleet: twice the credential-set bound and half the client bound the resolver had.
  for (const identities of [30, 2000]) {
    it(`${identities} identities, every cluster resolving every 20 minutes for 3 hours: one AssumeRole per role and session lifetime, no eviction`, async () => {
      const { platform, clusters, world } = fleet(identities);
      const aws = await startAwsEmulator({ world });
      let evictions = 0;
      const resolver = resolverOn(aws, platform, {
        controllerCredentials: () => Promise.resolve(CONTROLLER_KEYS),
        observer: { credentialSetEvicted: () => (evictions += 1) },
      });
      try {
        const hours = 3;
        const stepSeconds = 1200;
        for (let elapsed = 0; elapsed <= hours * 3600; elapsed += stepSeconds) {
          // As the controller's workers do: a few at once, thousands of sockets to the emulator would not do.
          const queue = [...clusters];
          await Promise.all(
            Array.from({ length: WORKERS }, async () => {
              for (let cluster = queue.pop(); cluster; cluster = queue.pop())
                (await resolver.resolve(cluster)).client(ResourceGroupsTaggingAPIClient);
            }),
          );
          aws.clock.advance(stepSeconds);
        }
        const summary = aws.calls.summary();
        // Sessions of 3600 s over 3 h, renewed at the first resolve in their refresh window: at 0, 1, 2 and 3 h.
        const windows = hours + 1;
        const roles = identities + 1;
        expect(summary.byAction['sts:AssumeRole'], `${roles} roles (the hub's included) × ${windows}`).to.equal(
          roles * windows,
        );
        expect(summary.byAction['sts:GetCallerIdentity'], 'once per credential set clusters use').to.equal(identities);
        expect(summary.errors).to.deep.equal({});
        expect(evictions).to.equal(0);
        // The controller's keys are a set too. A tagging client per cluster; an STS client per set asked
        // who it is, and the controller's and the hub's, which assume the tenants' roles.
        expect(resolver.size).to.deep.equal({
          credentialSets: roles + 1,
          clients: clusters.length + identities + 2,
        });
      } finally {
        resolver.clear();
        await aws.stop();
      }
    });
  }

  it('counts the sets a namespace drops for room once nothing pins them, and no others', async () => {
    const { platform, clusters, world } = fleet(25, 'crowd');
    const crowd = clusters
      .filter(({ region }) => region === REGIONS[0])
      .map((cluster) => ({ ...cluster, namespace: 'crowd' }));
    const aws = await startAwsEmulator({ world });
    const evicted: string[] = [];
    const resolver = resolverOn(aws, platform, {
      controllerCredentials: () => Promise.resolve(CONTROLLER_KEYS),
      observer: { credentialSetEvicted: (namespace) => evicted.push(namespace) },
    });
    try {
      for (const cluster of crowd) await resolver.resolve(cluster);
      expect(evicted, 'pinned sets stay').to.deep.equal([]);
      for (const { holder } of crowd) resolver.release(holder);
      // 25 roles, the hub and the controller's keys, unpinned in one namespace's 20.
      expect(evicted).to.deep.equal(Array.from({ length: 7 }, () => 'crowd'));
      expect(resolver.size.credentialSets).to.equal(20);
    } finally {
      resolver.clear();
      await aws.stop();
    }
  });
});
