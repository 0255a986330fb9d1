import type { AWSCluster, ResourceTag, TagConflict, TagSource } from '@keymaster/api';
import { expect } from 'chai';
import {
  fingerprint,
  formatPlan,
  planChanges,
  planTags,
  resolveEffectiveTags,
  summarizePlan,
  tagLayers,
  type LayerName,
  type RemovalPolicy,
} from '../src/index.js';
import { memoryAfter } from '../src/memory-after.js';
import { cluster, CLUSTER, CLUSTER_OBJECT, instanceArn, memoryOf, owned, policy, POLICY } from './fixtures.js';

const CAPA_OBJECT = 'AWSCluster.infrastructure.cluster.x-k8s.io tenant-b/analytics-dev';
const ARN = instanceArn('i-0a1');

/** The fixture cluster with CAPA's spec.additionalTags in spec.clusterAPI, as the adoption controller writes it. */
function companion(capaTags: Record<string, string>, clusterTags: Record<string, string> = {}): AWSCluster {
  const base = cluster(clusterTags);
  return {
    ...base,
    spec: {
      ...base.spec,
      clusterAPI: {
        clusterRef: { name: CLUSTER },
        infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'AWSCluster', name: CLUSTER },
        additionalTags: capaTags,
      },
    },
  };
}

const resolve = (global: ResourceTag[], target: AWSCluster, clusterAPICompanion = true) =>
  resolveEffectiveTags(tagLayers({ policy: policy(global), identities: [], cluster: target, clusterAPICompanion }));

const capaClaim = (value: string): TagSource => ({ layer: 'ClusterAPI', object: CAPA_OBJECT, value });
const globalClaim = (value: string, overridePolicy: 'Allow' | 'Deny' = 'Allow'): TagSource => ({
  layer: 'Global',
  object: POLICY,
  value,
  overridePolicy,
});

function planOf(input: {
  global?: ResourceTag[];
  capaTags: Record<string, string>;
  live: Record<string, string>;
  removalPolicy?: RemovalPolicy;
  written?: Partial<Record<LayerName, Record<string, string>>>;
}) {
  const effective = resolve(input.global ?? [], companion(input.capaTags));
  const resources = { [ARN]: { ...owned(), ...input.live } };
  const memory = memoryOf({ [ARN]: input.written ?? {} });
  const plan = planTags({
    clusterName: CLUSTER,
    effective,
    resources,
    memory,
    removalPolicy: input.removalPolicy ?? 'Delete',
  });
  return { plan, memory, resources };
}

describe('the ClusterAPI layer (CAPA spec.additionalTags)', () => {
  describe('tagLayers', () => {
    it("puts CAPA's tags of a companion after every other layer, named by CAPA's object", () => {
      const layers = tagLayers({ identities: [], cluster: companion({ team: 'capa' }), clusterAPICompanion: true });
      expect(layers).to.deep.equal([
        { layer: 'Cluster', object: CLUSTER_OBJECT, tags: [] },
        { layer: 'ClusterAPI', object: CAPA_OBJECT, tags: [{ key: 'team', value: 'capa' }] },
      ]);
    });

    it('leaves the layer of an AWSCluster that is no companion out, and says so once', () => {
      const effective = resolve([], companion({ team: 'capa', env: 'x' }), false);
      expect(effective.held).to.deep.equal({});
      expect(effective.tags).to.deep.equal({});
      expect(effective.problems.map(({ rule, layer, object, key }) => ({ rule, layer, object, key }))).to.deep.equal([
        {
          rule: 'UntrustedClusterAPI',
          layer: 'ClusterAPI',
          object: `${CLUSTER_OBJECT} spec.clusterAPI`,
          key: undefined,
        },
      ]);
      expect(effective.problems[0]!.code).to.equal('ERR_KEYMASTER_TAGGING_UNTRUSTED_CLUSTER_API');
      expect(effective.problems[0]!.message).to.contain('remove spec.clusterAPI');
    });

    it('has no ClusterAPI layer without CAPA tags, trusted or not', () => {
      for (const clusterAPICompanion of [true, false]) {
        const layers = tagLayers({ identities: [], cluster: companion({}), clusterAPICompanion });
        expect(layers.map(({ layer }) => layer)).to.deep.equal(['Cluster']);
      }
    });
  });

  describe('resolveEffectiveTags', () => {
    const cases: {
      name: string;
      global: ResourceTag[];
      capa: Record<string, string>;
      trusted?: boolean;
      tags: Record<string, string>;
      held: Record<string, string>;
      conflicts: TagConflict[];
    }[] = [
      {
        name: "a key only CAPA sets is held, not Keymaster's",
        global: [],
        capa: { team: 'capa' },
        tags: {},
        held: { team: 'capa' },
        conflicts: [],
      },
      {
        name: 'a Keymaster layer asking for the same value: held, nothing to report',
        global: [{ key: 'env', value: 'prod' }],
        capa: { env: 'prod' },
        tags: {},
        held: { env: 'prod' },
        conflicts: [],
      },
      {
        name: 'a Keymaster layer asking for another value: a conflict CAPA holds',
        global: [{ key: 'env', value: 'prod' }],
        capa: { env: 'staging' },
        tags: {},
        held: { env: 'staging' },
        conflicts: [{ key: 'env', winner: capaClaim('staging'), loser: globalClaim('prod') }],
      },
      {
        name: 'a Deny above it holds nothing: CAPA still holds the key, and the Deny is the loser',
        global: [{ key: 'tenant', value: 'b', overridePolicy: 'Deny' }],
        capa: { tenant: 'x' },
        tags: {},
        held: { tenant: 'x' },
        conflicts: [{ key: 'tenant', winner: capaClaim('x'), loser: globalClaim('b', 'Deny') }],
      },
      {
        name: 'a hand-made spec.clusterAPI exempts nothing: the Deny is written',
        global: [{ key: 'tenant', value: 'b', overridePolicy: 'Deny' }],
        capa: { tenant: 'x' },
        trusted: false,
        tags: { tenant: 'b' },
        held: {},
        conflicts: [],
      },
      {
        name: "keys CAPA does not set stay Keymaster's",
        global: [{ key: 'cost-center', value: '1000' }],
        capa: { team: 'capa' },
        tags: { 'cost-center': '1000' },
        held: { team: 'capa' },
        conflicts: [],
      },
    ];
    for (const { name, global, capa, trusted = true, tags, held, conflicts } of cases) {
      it(name, () => {
        const effective = resolve(global, companion(capa), trusted);
        const values = (record: Record<string, TagSource>) =>
          Object.fromEntries(Object.entries(record).map(([key, { value }]) => [key, value]));
        expect(values(effective.tags)).to.deep.equal(tags);
        expect(values(effective.held)).to.deep.equal(held);
        expect(effective.conflicts).to.deep.equal(conflicts);
      });
    }
  });

  describe('planTags', () => {
    it('never adds nor updates a held key, whatever is on the resource', () => {
      for (const live of [{}, { env: 'other' }] as Record<string, string>[]) {
        const { plan } = planOf({ global: [{ key: 'env', value: 'prod' }], capaTags: { env: 'staging' }, live });
        const [resource] = plan.resources;
        expect(resource!.outcome, JSON.stringify(live)).to.equal('InSync');
        expect([...resource!.add, ...resource!.update]).to.deep.equal([]);
        expect(planChanges(plan)).to.deep.equal([]);
      }
    });

    it('never removes a held key under Delete, even where Keymaster wrote its very value', () => {
      const { plan } = planOf({
        capaTags: { env: 'staging' },
        live: { env: 'prod' },
        written: { Global: { env: 'prod' } },
      });
      expect(plan.resources[0]!.remove).to.deep.equal([]);
      expect(plan.resources[0]!.outcome).to.equal('InSync');
    });

    it("removes what Keymaster wrote of a key CAPA does not hold (the Delete policy still works beside CAPA's keys)", () => {
      const { plan } = planOf({
        capaTags: { env: 'staging' },
        live: { owner: 'alice' },
        written: { Cluster: { owner: 'alice' } },
      });
      expect(plan.resources[0]!.remove).to.deep.equal([{ key: 'owner', value: 'alice' }]);
    });

    it('drops a held key from the memory, both the value on the resource and the one CAPA sets', () => {
      const { plan, memory, resources } = planOf({
        global: [{ key: 'cost-center', value: '1000' }],
        capaTags: { env: 'staging' },
        live: { env: 'prod', 'cost-center': '1000' },
        written: { Global: { env: 'prod', 'cost-center': '1000' }, Cluster: { env: 'staging' } },
      });
      const kept = { global: [fingerprint('cost-center', '1000')] };
      expect(plan.resources[0]!.memory).to.deep.equal(kept);
      for (const dryRun of [false, true]) {
        const after = memoryAfter({ memory, plan, resources, applied: [], gone: [], convertLegacy: false, dryRun });
        expect(after.of(ARN).prints(), `dryRun ${dryRun}`).to.deep.equal(kept);
      }
    });

    it("shows held keys as CAPA's, out of the managed tags, and the conflict with CAPA as the holder", () => {
      const { plan } = planOf({
        global: [
          { key: 'env', value: 'prod' },
          { key: 'cost-center', value: '1000' },
        ],
        capaTags: { env: 'staging', team: 'capa' },
        live: { env: 'staging', team: 'capa', 'cost-center': '1000' },
      });
      expect(summarizePlan(plan).managedTags).to.deep.equal({ 'cost-center': '1000' });
      expect(JSON.parse(JSON.stringify(plan))).to.deep.equal(plan);
      expect(formatPlan(plan)).to.equal(
        [
          `Tag plan for cluster ${CLUSTER} (removal policy Delete, shared resources skipped)`,
          'Effective tags (1):',
          `  cost-center = "1000"  from ${POLICY} (Global)`,
          "Held by Cluster API (CAPA's spec.additionalTags: CAPA writes them, Keymaster neither writes nor removes them) (2):",
          `  env = "staging"  from ${CAPA_OBJECT} (ClusterAPI)`,
          `  team = "capa"  from ${CAPA_OBJECT} (ClusterAPI)`,
          'Conflicts (1):',
          `  env: "staging" from ${CAPA_OBJECT} (ClusterAPI) wins over "prod" from ${POLICY} (Global); CAPA writes the key and Keymaster leaves it: set it in one of them only`,
          'Resources: 1 discovered, 0 to change, 0 over the tag limit, 1 in sync, 0 skipped',
          '  (1 in sync, not shown)',
        ].join('\n'),
      );
    });
  });
});
