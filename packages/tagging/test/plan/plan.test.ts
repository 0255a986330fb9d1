import { expect } from 'chai';
import {
  ClusterMemory,
  fingerprint,
  LEGACY_CLAIM_KEY,
  planTags,
  resolveEffectiveTags,
  TaggingInputError,
  type ResourcePlan,
} from '../../src/index.js';
import { CLUSTER, instanceArn, legacyRemembered, memoryOf, owned, planFor } from '../fixtures.js';

const ARN = instanceArn('i-1');
const one = (plan: { resources: ResourcePlan[] }) => plan.resources[0]!;
/** `count` unmanaged user tags, as other tools leave them on a resource. */
const unmanaged = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`other-${i}`, 'x']));
/** A value of `note` whose fingerprint starts as that of legal-hold=yes (found by brute force). */
const COLLIDING_NOTE = 'x6524245';

describe('planTags', () => {
  describe('outcomes', () => {
    it('adds a missing key', () => {
      const resource = one(planFor({ clusterTags: { team: 'a' }, resources: { [ARN]: owned() } }));
      expect(resource).to.deep.include({ outcome: 'Change', region: 'eu-west-1', add: [{ key: 'team', value: 'a' }] });
      expect(resource.update).to.deep.equal([]);
    });

    const updates: { name: string; managed: Record<string, string>; live: string; reason: string }[] = [
      { name: 'the layers changed the value', managed: { team: 'a' }, live: 'a', reason: 'PolicyChanged' },
      { name: 'someone edited the value', managed: { team: 'b' }, live: 'edited', reason: 'Drift' },
      { name: 'Keymaster did not manage the key before', managed: {}, live: 'theirs', reason: 'Adopted' },
    ];
    for (const { name, managed, live, reason } of updates) {
      it(`updates a differing value when ${name}`, () => {
        const plan = planFor({
          clusterTags: { team: 'b' },
          managedTags: managed,
          resources: { [ARN]: { ...owned(), team: live } },
        });
        expect(one(plan)).to.deep.include({
          outcome: 'Change',
          update: [{ key: 'team', from: live, to: 'b', reason }],
        });
      });
    }

    it('is in sync when every managed key has its value', () => {
      const plan = planFor({ clusterTags: { team: 'a' }, resources: { [ARN]: { ...owned(), team: 'a', other: 'x' } } });
      expect(one(plan)).to.deep.equal({
        arn: ARN,
        region: 'eu-west-1',
        outcome: 'InSync',
        add: [],
        update: [],
        remove: [],
        conflicts: [],
      });
    });

    it('never touches keys it does not manage, under either policy', () => {
      for (const removalPolicy of ['Retain', 'Delete'] as const) {
        const live = { ...owned(), team: 'a', 'cost-center': 'theirs', 'aws:cloudformation:stack-name': 's' };
        const plan = planFor({
          clusterTags: { team: 'a' },
          managedTags: { team: 'a' },
          removalPolicy,
          resources: { [ARN]: live },
        });
        expect(one(plan).outcome).to.equal('InSync');
      }
    });
  });

  describe('removal policies', () => {
    const written = { team: 'a', legacy: 'old', edited: 'original' };
    const live = {
      ...owned(),
      team: 'a',
      legacy: 'old',
      edited: 'changed',
      kept: 'k',
    };
    const memory = memoryOf({ [ARN]: { Cluster: written } });
    const managedTags = { ...written, gone: 'x' };

    it('Retain (the default) leaves a key dropped from the layers where it is', () => {
      const resource = one(planFor({ clusterTags: { team: 'a' }, managedTags, memory, resources: { [ARN]: live } }));
      expect(resource).to.deep.include({ outcome: 'InSync', remove: [], conflicts: [] });
    });

    it('Delete removes dropped keys still holding the applied value, and reports those changed since', () => {
      const plan = planFor({
        clusterTags: { team: 'a' },
        managedTags,
        removalPolicy: 'Delete',
        memory,
        resources: { [ARN]: live },
      });
      expect(one(plan)).to.deep.include({
        outcome: 'Change',
        remove: [{ key: 'legacy', value: 'old' }],
        conflicts: [{ key: 'edited', live: 'changed', applied: 'original' }],
      });
    });

    it('Delete never removes ownership, reserved or AWS tags, even when remembered or recorded as managed', () => {
      const forged = { ...owned(), 'aws:x': 'y', Name: 'web', 'kubernetes.io/role': 'x' };
      const plan = planFor({
        removalPolicy: 'Delete',
        managedTags: forged,
        memory: memoryOf({ [ARN]: { Cluster: forged } }),
        resources: { [ARN]: forged },
      });
      expect(one(plan)).to.deep.include({ outcome: 'InSync', remove: [] });
    });

    it('Delete removes nothing that status claims but the resource does not remember (forged or stale status)', () => {
      const resource = one(
        planFor({
          removalPolicy: 'Delete',
          managedTags: { 'legal-hold': 'yes', owner: 'b' },
          resources: { [ARN]: { ...owned(), 'legal-hold': 'yes', owner: 'b' } },
        }),
      );
      expect(resource).to.deep.include({ outcome: 'InSync', remove: [] });
    });

    it('never remembers a key whose value another tool already set, so Delete leaves it when dropped', () => {
      const before = { ...owned(), 'legal-hold': 'yes' };
      const adopted = one(planFor({ clusterTags: { 'legal-hold': 'yes', team: 'a' }, resources: { [ARN]: before } }));
      expect(adopted.memory).to.deep.equal({ cluster: [fingerprint('team', 'a')] });

      const memory = ClusterMemory.fromLedger([{ resources: [], ...adopted.memory }]);
      memory.set(ARN, memoryOf({ [ARN]: { Cluster: { team: 'a' } } }).of(ARN));
      const after = { ...before, team: 'a' };
      const dropped = one(planFor({ removalPolicy: 'Delete', memory, resources: { [ARN]: after } }));
      expect(dropped.remove).to.deep.equal([{ key: 'team', value: 'a' }]);
    });

    it('keeps the keys of a layer that no longer stands (policy deleted, tags cleared, re-created lately)', () => {
      const resources = { [ARN]: { ...owned(), cost: '1' } };
      const memory = memoryOf({ [ARN]: { Global: { cost: '1' } } });
      const gone = one(planFor({ removalPolicy: 'Delete', standingLayers: ['Account', 'Cluster'], memory, resources }));
      expect(gone).to.deep.include({ outcome: 'InSync', remove: [] });
      const standing = one(planFor({ removalPolicy: 'Delete', memory, resources }));
      expect(standing.remove).to.deep.equal([{ key: 'cost', value: '1' }]);
    });

    it('never removes a key another layer still sets, such as a Deny of the policy', () => {
      const plan = planFor({
        global: [{ key: 'abac', value: 'x', overridePolicy: 'Deny' }],
        removalPolicy: 'Delete',
        memory: memoryOf({ [ARN]: { Cluster: { abac: 'x' } } }),
        resources: { [ARN]: { ...owned(), abac: 'x' } },
      });
      expect(one(plan)).to.deep.include({ outcome: 'InSync', remove: [] });
    });

    it('reads memory from the ledger only: memory tags on the resource, forged or copied, remove nothing', () => {
      const forged = { ...owned(), 'legal-hold': 'yes', ...legacyRemembered('Cluster', { 'legal-hold': 'yes' }) };
      const plan = planFor({ removalPolicy: 'Delete', resources: { [ARN]: forged } });
      expect(one(plan)).to.deep.include({ outcome: 'InSync', remove: [] });
      expect(plan.ignoredBookkeepingKeys).to.deep.equal(['keymaster.dev/applied-cluster']);
    });

    it('binds memory to its resource: what Keymaster wrote on one resource removes nothing on another', () => {
      const other = instanceArn('i-2');
      const plan = planFor({
        removalPolicy: 'Delete',
        memory: memoryOf({ [ARN]: { Cluster: { team: 'a' } } }),
        resources: { [ARN]: { ...owned(), team: 'a' }, [other]: { ...owned(), team: 'a' } },
      });
      expect(plan.resources.map(({ arn, remove }) => [arn, remove])).to.deep.equal([
        [ARN, [{ key: 'team', value: 'a' }]],
        [other, []],
      ]);
    });

    it('removes nothing for a value whose 24-bit print collides with a remembered one: the ledger keeps 72 bits', () => {
      // fingerprint('note', 'x6524245') and fingerprint('legal-hold', 'yes') share their first 4 characters,
      // all the memory tags of releases up to 0.2.0 held.
      const [collision, target] = [fingerprint('note', COLLIDING_NOTE), fingerprint('legal-hold', 'yes')];
      expect(collision.slice(0, 4)).to.equal(target.slice(0, 4));
      expect(collision).not.to.equal(target);
      const plan = planFor({
        removalPolicy: 'Delete',
        memory: memoryOf({ [ARN]: { Cluster: { note: COLLIDING_NOTE } } }),
        resources: { [ARN]: { ...owned(), 'legal-hold': 'yes' } },
      });
      expect(one(plan)).to.deep.include({ outcome: 'InSync', remove: [] });
    });
  });

  describe('memory', () => {
    it('says what each resource remembers after the writes: each write under the layer that won the key, the value it replaces forgotten', () => {
      const resource = one(
        planFor({
          global: [{ key: 'cost', value: '2' }],
          clusterTags: { team: 'a' },
          memory: memoryOf({ [ARN]: { Global: { cost: '1', other: 'o' } } }),
          resources: { [ARN]: { ...owned(), cost: '1' } },
        }),
      );
      expect(resource.memory).to.deep.equal({
        global: [fingerprint('cost', '2'), fingerprint('other', 'o')].sort(),
        cluster: [fingerprint('team', 'a')],
      });
      expect(resource.add).to.deep.equal([{ key: 'team', value: 'a' }]);
    });

    it('writes no tag of its own: a resource in sync needs no write, whatever it remembers', () => {
      const plan = planFor({
        clusterTags: { team: 'a' },
        memory: memoryOf({ [ARN]: { Cluster: { team: 'a' } } }),
        resources: { [ARN]: { ...owned(), team: 'a' }, [instanceArn('i-2')]: { ...owned(), team: 'a' } },
      });
      expect(plan.resources.map(({ outcome, memory }) => [outcome, memory])).to.deep.equal([
        ['InSync', { cluster: [fingerprint('team', 'a')] }],
        ['InSync', undefined],
      ]);
    });

    it('converts legacy bookkeeping: its memory counts for the values the resource carries, and its tags go', () => {
      const legacy = {
        ...owned(),
        team: 'a',
        stale: 'now',
        [LEGACY_CLAIM_KEY]: 'c1',
        ...legacyRemembered('Cluster', { team: 'a', stale: 'before' }),
        'keymaster.dev/other': 'x',
      };
      const input = { removalPolicy: 'Delete' as const, resources: { [ARN]: legacy } };
      const converted = one(planFor({ ...input, convertLegacy: true }));
      expect(converted).to.deep.include({
        outcome: 'Change',
        remove: [{ key: 'team', value: 'a' }],
        legacyTags: [LEGACY_CLAIM_KEY, 'keymaster.dev/applied-cluster'],
      });
      // Removing team forgets it: stale's legacy print matches no live value, so nothing is left.
      expect(converted.memory).to.equal(undefined);
      expect(planFor({ ...input, convertLegacy: true }).ignoredBookkeepingKeys).to.deep.equal(['keymaster.dev/other']);
      // Once converted, the same tags are someone else's: nothing read, nothing removed, all reported.
      const after = planFor(input);
      expect(one(after)).to.deep.include({ outcome: 'InSync', remove: [] });
      expect(one(after).legacyTags).to.equal(undefined);
      expect(after.ignoredBookkeepingKeys).to.deep.equal([
        'keymaster.dev/applied-cluster',
        LEGACY_CLAIM_KEY,
        'keymaster.dev/other',
      ]);
    });
  });

  describe('skips', () => {
    const cases: {
      name: string;
      arn: string;
      live: Record<string, string>;
      reason: string;
      includeShared?: boolean;
    }[] = [
      {
        name: "resources without this cluster's ownership tag",
        arn: ARN,
        live: owned('owned', 'other-cluster'),
        reason: 'NotOwned',
      },
      {
        name: 'resources whose elbv2.k8s.aws/cluster names another cluster (here, in other case)',
        arn: ARN,
        live: { 'elbv2.k8s.aws/cluster': 'Analytics-Dev' },
        reason: 'NotOwned',
      },
      { name: 'shared resources by default', arn: ARN, live: owned('shared'), reason: 'Shared' },
      {
        name: 'resources shared through one of the two tags',
        arn: ARN,
        live: { ...owned(), 'kubernetes.io/cluster/analytics-dev': 'shared' },
        reason: 'Shared',
      },
      { name: 'ids that are not ARNs', arn: 'i-0123', live: owned(), reason: 'InvalidArn' },
      {
        name: 'ARNs without a region when discovery gave none',
        arn: 'arn:aws:s3:::bucket',
        live: owned(),
        reason: 'UnknownRegion',
      },
    ];
    for (const { name, arn, live, reason } of cases) {
      it(`skips ${name}`, () => {
        const resource = one(planFor({ clusterTags: { team: 'a' }, resources: { [arn]: live } }));
        expect(resource.outcome).to.equal('Skip');
        expect(resource.skip?.reason).to.equal(reason);
        expect(resource.add).to.deep.equal([]);
      });
    }

    it("governs what the AWS Load Balancer Controller tagged with the cluster's name as an owned resource", () => {
      const resource = one(
        planFor({ clusterTags: { team: 'a' }, resources: { [ARN]: { 'elbv2.k8s.aws/cluster': 'analytics-dev' } } }),
      );
      expect(resource).to.deep.include({ outcome: 'Change', add: [{ key: 'team', value: 'a' }] });
    });

    it('tags shared resources when asked to', () => {
      const resource = one(
        planFor({ clusterTags: { team: 'a' }, includeShared: true, resources: { [ARN]: owned('shared') } }),
      );
      expect(resource).to.deep.include({ outcome: 'Change', add: [{ key: 'team', value: 'a' }] });
    });

    it('takes the region of a regionless ARN from discovery', () => {
      const bucket = 'arn:aws:s3:::analytics-dev-ignition';
      const plan = planFor({
        clusterTags: { team: 'a' },
        regions: { [bucket]: 'eu-central-1' },
        resources: { [bucket]: owned() },
      });
      expect(one(plan)).to.deep.include({ outcome: 'Change', region: 'eu-central-1' });
    });
  });

  describe("AWS's tag limit, checked before any call", () => {
    it('withholds adds that would take a resource over 50 user tags, and goes on with updates and removals', () => {
      const plan = planFor({
        clusterTags: { a: '1', b: '2', team: 'new' },
        managedTags: { team: 'old', legacy: 'x' },
        removalPolicy: 'Delete',
        // 46 + ownership 2 + team + legacy = 50 user tags; aws: tags do not count.
        memory: memoryOf({ [ARN]: { Cluster: { team: 'old', legacy: 'x' } } }),
        resources: {
          [ARN]: {
            ...unmanaged(46),
            ...owned(),
            team: 'old',
            legacy: 'x',
            'aws:autoscaling:groupName': 'g',
          },
        },
      });
      expect(one(plan)).to.deep.include({
        outcome: 'OverLimit',
        add: [],
        update: [{ key: 'team', from: 'old', to: 'new', reason: 'PolicyChanged' }],
        remove: [{ key: 'legacy', value: 'x' }],
        overLimit: {
          limit: 50,
          userTags: 51,
          withheld: [
            { key: 'a', value: '1' },
            { key: 'b', value: '2' },
          ],
        },
      });
    });

    it('adds up to exactly 50 user tags, counting the room removals free', () => {
      // 46 + 2 ownership tags + legacy = 49 user tags: removing legacy and adding a and b makes 50.
      const input = {
        clusterTags: { a: '1', b: '2' },
        managedTags: { legacy: 'x' },
        memory: memoryOf({ [ARN]: { Cluster: { legacy: 'x' } } }),
        resources: { [ARN]: { ...unmanaged(46), ...owned(), legacy: 'x' } },
      };
      const deleting = one(planFor({ ...input, removalPolicy: 'Delete' }));
      expect(deleting).to.deep.include({ outcome: 'Change', remove: [{ key: 'legacy', value: 'x' }] });
      expect(deleting.add).to.have.length(2);
      expect(one(planFor({ ...input, removalPolicy: 'Retain' })).overLimit?.userTags).to.equal(51);
    });
  });

  describe('HyperShift-style overridePolicy Deny', () => {
    it('puts an enforced ABAC tag back even when the cluster asks for another value', () => {
      const plan = planFor({
        global: [{ key: 'red-hat-managed', value: 'true', overridePolicy: 'Deny' }],
        clusterTags: { 'red-hat-managed': 'false' },
        managedTags: { 'red-hat-managed': 'true' },
        resources: { [ARN]: { ...owned(), 'red-hat-managed': 'false' } },
      });
      expect(one(plan).update).to.deep.equal([{ key: 'red-hat-managed', from: 'false', to: 'true', reason: 'Drift' }]);
      expect(plan.conflicts).to.have.length(1);
      expect(plan.conflicts[0]).to.deep.include({ key: 'red-hat-managed' });
      expect(plan.conflicts[0]?.winner).to.deep.include({ layer: 'Global', value: 'true', overridePolicy: 'Deny' });
      expect(plan.conflicts[0]?.loser).to.deep.include({ layer: 'Cluster', value: 'false' });
    });

    it('lets the cluster override the same tag once the policy allows it', () => {
      const plan = planFor({
        global: [{ key: 'red-hat-managed', value: 'true', overridePolicy: 'Allow' }],
        clusterTags: { 'red-hat-managed': 'false' },
        resources: { [ARN]: { ...owned(), 'red-hat-managed': 'false' } },
      });
      expect(one(plan).outcome).to.equal('InSync');
      expect(plan.conflicts[0]?.winner).to.deep.include({ layer: 'Cluster', value: 'false' });
    });
  });

  describe('ownership tags', () => {
    it('never writes them, even when the reserved keys let one into the layers', () => {
      const ownershipKey = `kubernetes.io/cluster/${CLUSTER}`;
      const plan = planFor({
        clusterTags: { [ownershipKey]: 'shared', team: 'a' },
        validation: { reservedKeys: { domains: [], keys: [] } },
        resources: { [ARN]: owned() },
      });
      expect(one(plan).add).to.deep.equal([{ key: 'team', value: 'a' }]);
      expect(plan.tags).to.have.keys(['team']);
      expect(plan.problems.map(({ key, rule }) => [key, rule])).to.deep.equal([[ownershipKey, 'OwnershipKey']]);
    });
  });

  it('reads keys such as __proto__ and constructor as plain tag keys', () => {
    const live = JSON.parse('{"__proto__":"old","constructor":"c"}') as Record<string, string>;
    const clusterTags = JSON.parse('{"__proto__":"new","toString":"t"}') as Record<string, string>;
    const resource = one(planFor({ clusterTags, resources: { [ARN]: { ...owned(), ...live } } }));
    expect(resource.add).to.deep.equal([{ key: 'toString', value: 't' }]);
    expect(resource.update).to.deep.equal([{ key: '__proto__', from: 'old', to: 'new', reason: 'Adopted' }]);
  });

  it('lists resources in ARN order and carries the conflicts and problems of the layers', () => {
    const plan = planFor({
      global: [{ key: 'env', value: 'prod', overridePolicy: 'Deny' }],
      clusterTags: { env: 'dev', Name: 'x' },
      resources: { [instanceArn('i-2')]: owned(), [instanceArn('i-1')]: owned() },
    });
    expect(plan.resources.map(({ arn }) => arn)).to.deep.equal([instanceArn('i-1'), instanceArn('i-2')]);
    expect(plan.conflicts.map(({ key }) => key)).to.deep.equal(['env']);
    expect(plan.problems.map(({ key }) => key)).to.deep.equal(['Name']);
    expect(plan).to.deep.include({ clusterName: CLUSTER, removalPolicy: 'Retain', includeShared: false });
  });

  it('survives a JSON round trip unchanged, with every outcome in it', () => {
    const plan = planFor({
      global: [{ key: 'env', value: 'prod', overridePolicy: 'Deny' }],
      clusterTags: { env: 'dev', team: 'a', Name: 'x' },
      managedTags: { legacy: 'x', edited: 'y', team: 'old' },
      removalPolicy: 'Delete',
      resources: {
        [instanceArn('i-change')]: { ...owned(), legacy: 'x', edited: 'z', team: 'old' },
        [instanceArn('i-sync')]: { ...owned(), env: 'prod', team: 'a' },
        [instanceArn('i-full')]: { ...owned(), ...unmanaged(48) },
        [instanceArn('i-shared')]: owned('shared'),
        'arn:aws:s3:::no-region': owned(),
      },
    });
    expect(plan.resources.map(({ outcome }) => outcome).sort()).to.deep.equal([
      'Change',
      'InSync',
      'OverLimit',
      'Skip',
      'Skip',
    ]);
    expect(JSON.parse(JSON.stringify(plan))).to.deep.equal(plan);
  });

  it('refuses an empty cluster name', () => {
    expect(() => planTags({ clusterName: '', effective: resolveEffectiveTags([]), resources: {} }))
      .to.throw(TaggingInputError)
      .with.property('code', 'ERR_KEYMASTER_TAGGING_INVALID_INPUT');
  });
});
