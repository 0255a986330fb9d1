import { expect } from 'chai';
import { planTags, resolveEffectiveTags, TaggingInputError, type ResourcePlan } from '../../src/index.js';
import { CLAIM_KEY, MEMORY_KEYS } from '../../src/index.js';
import { CLUSTER, instanceArn, owned, planFor, remembered } from '../fixtures.js';

const ARN = instanceArn('i-1');
const one = (plan: { resources: ResourcePlan[] }) => plan.resources[0]!;
/** `count` unmanaged user tags, as other tools leave them on a resource. */
const unmanaged = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`other-${i}`, 'x']));

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
      ...remembered('Cluster', written),
    };
    const managedTags = { ...written, gone: 'x' };

    it('Retain (the default) leaves a key dropped from the layers where it is', () => {
      const resource = one(planFor({ clusterTags: { team: 'a' }, managedTags, resources: { [ARN]: live } }));
      expect(resource).to.deep.include({ outcome: 'InSync', remove: [], conflicts: [] });
    });

    it('Delete removes dropped keys still holding the applied value, and reports those changed since', () => {
      const plan = planFor({
        clusterTags: { team: 'a' },
        managedTags,
        removalPolicy: 'Delete',
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
        resources: { [ARN]: { ...forged, ...remembered('Cluster', forged) } },
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
      const memory = adopted.bookkeeping!.set.find(({ key }) => key === MEMORY_KEYS.Cluster)!.value;
      expect(memory).to.equal(remembered('Cluster', { team: 'a' })[MEMORY_KEYS.Cluster]);

      const after = { ...before, team: 'a', [MEMORY_KEYS.Cluster]: memory };
      const dropped = one(planFor({ removalPolicy: 'Delete', resources: { [ARN]: after } }));
      expect(dropped.remove).to.deep.equal([{ key: 'team', value: 'a' }]);
    });

    it('keeps the keys of a layer that no longer stands (policy deleted, tags cleared, re-created lately)', () => {
      const resources = { [ARN]: { ...owned(), cost: '1', ...remembered('Global', { cost: '1' }) } };
      const gone = one(planFor({ removalPolicy: 'Delete', standingLayers: ['Account', 'Cluster'], resources }));
      expect(gone).to.deep.include({ outcome: 'InSync', remove: [] });
      const standing = one(planFor({ removalPolicy: 'Delete', resources }));
      expect(standing.remove).to.deep.equal([{ key: 'cost', value: '1' }]);
    });

    it('never removes a key another layer still sets, such as a Deny of the policy', () => {
      const resources = { [ARN]: { ...owned(), abac: 'x', ...remembered('Cluster', { abac: 'x' }) } };
      const plan = planFor({
        global: [{ key: 'abac', value: 'x', overridePolicy: 'Deny' }],
        removalPolicy: 'Delete',
        resources,
      });
      expect(one(plan)).to.deep.include({ outcome: 'InSync', remove: [] });
    });
  });

  describe('bookkeeping', () => {
    it('remembers each write under the layer that won the key, and forgets the value it replaces', () => {
      const resource = one(
        planFor({
          global: [{ key: 'cost', value: '2' }],
          clusterTags: { team: 'a' },
          resources: { [ARN]: { ...owned(), cost: '1', ...remembered('Global', { cost: '1', other: 'o' }) } },
        }),
      );
      expect(resource.bookkeeping).to.deep.equal({
        set: [
          { key: MEMORY_KEYS.Cluster, value: remembered('Cluster', { team: 'a' })[MEMORY_KEYS.Cluster] },
          { key: MEMORY_KEYS.Global, value: remembered('Global', { cost: '2', other: 'o' })[MEMORY_KEYS.Global] },
        ],
        remove: [],
      });
    });

    it('writes the claim on a resource that lacks it, and nothing on one that has it and is in sync', () => {
      const plan = planFor({
        claim: 'c1',
        resources: { [instanceArn('i-1')]: owned(), [instanceArn('i-2')]: { ...owned(), [CLAIM_KEY]: 'c1' } },
      });
      expect(plan.resources.map(({ outcome, bookkeeping }) => [outcome, bookkeeping])).to.deep.equal([
        ['Change', { set: [{ key: CLAIM_KEY, value: 'c1' }], remove: [] }],
        ['InSync', undefined],
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
        // 45 + ownership 2 + team + legacy + memory = 50 user tags; aws: tags do not count.
        resources: {
          [ARN]: {
            ...unmanaged(45),
            ...owned(),
            team: 'old',
            legacy: 'x',
            ...remembered('Cluster', { team: 'old', legacy: 'x' }),
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
      // 45 + 2 ownership tags + legacy + memory = 49 user tags: removing legacy and adding a and b makes 50.
      const input = {
        clusterTags: { a: '1', b: '2' },
        managedTags: { legacy: 'x' },
        resources: { [ARN]: { ...unmanaged(45), ...owned(), legacy: 'x', ...remembered('Cluster', { legacy: 'x' }) } },
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
