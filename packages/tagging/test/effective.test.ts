import type { ResourceTag, TagConflict, TagSource } from '@keymaster/api';
import { expect } from 'chai';
import { effectiveValues, resolveEffectiveTags, tagLayers, type LayerObjects } from '../src/index.js';
import { cluster, CLUSTER_OBJECT, policy, POLICY, roleIdentity, staticIdentity } from './fixtures.js';

const HUB = 'AWSClusterStaticIdentity/hub';
const TENANT = 'AWSClusterRoleIdentity/tenant-b';

/** Global policy, a two-link chain (tenant-b assumed with hub's keys) and the cluster. */
const objects = (
  global: ResourceTag[],
  hub: ResourceTag[],
  tenant: ResourceTag[],
  clusterTags: Record<string, string>,
): LayerObjects => ({
  policy: policy(global),
  identities: [roleIdentity('tenant-b', tenant), staticIdentity('hub', hub)],
  cluster: cluster(clusterTags),
});

const resolve = (layerObjects: LayerObjects) => resolveEffectiveTags(tagLayers(layerObjects));

const globalClaim = (value: string, overridePolicy: 'Allow' | 'Deny' = 'Allow'): TagSource => ({
  layer: 'Global',
  object: POLICY,
  value,
  overridePolicy,
});
const accountClaim = (object: string, value: string, overridePolicy: 'Allow' | 'Deny' = 'Allow'): TagSource => ({
  layer: 'Account',
  object,
  value,
  overridePolicy,
});
const clusterClaim = (value: string): TagSource => ({ layer: 'Cluster', object: CLUSTER_OBJECT, value });

describe('tagLayers', () => {
  it('orders the layers by authority: global, the chain from its root to the cluster identity, the cluster', () => {
    const layers = tagLayers(objects([{ key: 'a', value: '1' }], [{ key: 'b', value: '2' }], [], { c: '3' }));
    expect(layers).to.deep.equal([
      { layer: 'Global', object: POLICY, tags: [{ key: 'a', value: '1' }] },
      { layer: 'Account', object: HUB, tags: [{ key: 'b', value: '2' }] },
      { layer: 'Account', object: TENANT, tags: [] },
      { layer: 'Cluster', object: CLUSTER_OBJECT, tags: [{ key: 'c', value: '3' }] },
    ]);
  });

  it('has no global layer without a policy', () => {
    const layers = tagLayers({ identities: [], cluster: cluster({}) });
    expect(layers.map(({ layer }) => layer)).to.deep.equal(['Cluster']);
  });
});

describe('resolveEffectiveTags', () => {
  const cases: {
    name: string;
    layers: LayerObjects;
    tags: Record<string, TagSource>;
    conflicts: TagConflict[];
  }[] = [
    {
      name: 'merges distinct keys of every layer, each with its provenance',
      layers: objects([{ key: 'g', value: '1' }], [{ key: 'h', value: '2' }], [{ key: 't', value: '3' }], { c: '4' }),
      tags: { c: clusterClaim('4'), g: globalClaim('1'), h: accountClaim(HUB, '2'), t: accountClaim(TENANT, '3') },
      conflicts: [],
    },
    {
      name: 'lets the cluster win over account and global by default',
      layers: objects([{ key: 'env', value: 'g' }], [], [{ key: 'env', value: 'a' }], { env: 'c' }),
      tags: { env: clusterClaim('c') },
      conflicts: [{ key: 'env', winner: clusterClaim('c'), loser: accountClaim(TENANT, 'a') }],
    },
    {
      name: 'lets the account win over global by default',
      layers: objects([{ key: 'env', value: 'g' }], [], [{ key: 'env', value: 'a' }], {}),
      tags: { env: accountClaim(TENANT, 'a') },
      conflicts: [{ key: 'env', winner: accountClaim(TENANT, 'a'), loser: globalClaim('g') }],
    },
    {
      name: 'lets the chain link nearest the cluster win over farther links',
      layers: objects([], [{ key: 'env', value: 'hub' }], [{ key: 'env', value: 'tenant' }], {}),
      tags: { env: accountClaim(TENANT, 'tenant') },
      conflicts: [{ key: 'env', winner: accountClaim(TENANT, 'tenant'), loser: accountClaim(HUB, 'hub') }],
    },
    {
      name: 'enforces a global Deny over account and cluster, naming the nearest loser',
      layers: objects(
        [{ key: 'red-hat-managed', value: 'true', overridePolicy: 'Deny' }],
        [],
        [{ key: 'red-hat-managed', value: 'maybe' }],
        { 'red-hat-managed': 'false' },
      ),
      tags: { 'red-hat-managed': globalClaim('true', 'Deny') },
      conflicts: [{ key: 'red-hat-managed', winner: globalClaim('true', 'Deny'), loser: clusterClaim('false') }],
    },
    {
      name: 'enforces an account Deny over the cluster and a nearer link',
      layers: objects([], [{ key: 'tenant', value: 'b', overridePolicy: 'Deny' }], [{ key: 'tenant', value: 'x' }], {}),
      tags: { tenant: accountClaim(HUB, 'b', 'Deny') },
      conflicts: [{ key: 'tenant', winner: accountClaim(HUB, 'b', 'Deny'), loser: accountClaim(TENANT, 'x') }],
    },
    {
      name: 'lets the topmost of two Deny claims win',
      layers: objects(
        [{ key: 'tier', value: 'gold', overridePolicy: 'Deny' }],
        [],
        [{ key: 'tier', value: 'silver', overridePolicy: 'Deny' }],
        {},
      ),
      tags: { tier: globalClaim('gold', 'Deny') },
      conflicts: [{ key: 'tier', winner: globalClaim('gold', 'Deny'), loser: accountClaim(TENANT, 'silver', 'Deny') }],
    },
    {
      name: 'lets a lower layer override an Allow claim below a Deny on another key',
      layers: objects(
        [
          { key: 'team', value: 'platform' },
          { key: 'owner', value: 'ops', overridePolicy: 'Deny' },
        ],
        [],
        [],
        { team: 'analytics' },
      ),
      tags: { owner: globalClaim('ops', 'Deny'), team: clusterClaim('analytics') },
      conflicts: [{ key: 'team', winner: clusterClaim('analytics'), loser: globalClaim('platform') }],
    },
    {
      name: 'reports no conflict when a lower layer repeats the enforced value',
      layers: objects([{ key: 'env', value: 'prod', overridePolicy: 'Deny' }], [], [], { env: 'prod' }),
      tags: { env: globalClaim('prod', 'Deny') },
      conflicts: [],
    },
  ];
  for (const { name, layers, tags, conflicts } of cases) {
    it(name, () => {
      const effective = resolve(layers);
      expect(effective.tags).to.deep.equal(tags);
      expect(effective.conflicts).to.deep.equal(conflicts);
      expect(effective.problems).to.deep.equal([]);
    });
  }

  it('leaves invalid tags out with their provenance, and lets the valid claims below them win', () => {
    const effective = resolve(
      objects(
        [{ key: 'owner', value: 'bad,value', overridePolicy: 'Deny' }],
        [],
        [{ key: 'sigs.k8s.io/x', value: '1' }],
        { owner: 'team-b', Name: 'mine' },
      ),
    );
    expect(effective.tags).to.deep.equal({ owner: clusterClaim('team-b') });
    expect(effective.problems.map(({ layer, object, key, rule }) => ({ layer, object, key, rule }))).to.deep.equal([
      { layer: 'Global', object: POLICY, key: 'owner', rule: 'ValueCharacters' },
      { layer: 'Account', object: TENANT, key: 'sigs.k8s.io/x', rule: 'ReservedKey' },
      { layer: 'Cluster', object: CLUSTER_OBJECT, key: 'Name', rule: 'ReservedKey' },
    ]);
  });

  describe('keys that differ only in case (IAM compares tag keys in conditions in any case)', () => {
    const refused = (layerObjects: LayerObjects) =>
      resolve(layerObjects).problems.map(({ layer, object, key, rule }) => ({ layer, object, key, rule }));

    it('refuses a variant of a key a higher layer enforces with Deny, naming both, and keeps the rest of the layer', () => {
      const effective = resolve(
        objects([{ key: 'platform-managed', value: 'true', overridePolicy: 'Deny' }], [], [], {
          'Platform-Managed': 'false',
          team: 'analytics',
        }),
      );
      expect(effective.tags).to.deep.equal({
        'platform-managed': globalClaim('true', 'Deny'),
        team: clusterClaim('analytics'),
      });
      expect(effective.problems).to.have.length(1);
      expect(effective.problems[0]).to.deep.include({
        layer: 'Cluster',
        object: CLUSTER_OBJECT,
        key: 'Platform-Managed',
        rule: 'KeyVariant',
        code: 'ERR_KEYMASTER_TAGGING_KEY_VARIANT',
      });
      expect(effective.problems[0]?.message)
        .to.contain('key "Platform-Managed"')
        .and.contain('"platform-managed"')
        .and.contain(POLICY);
    });

    it('refuses a variant with whitespace around it next to an enforced key', () => {
      expect(
        refused(
          objects([{ key: 'platform-managed', value: 'true', overridePolicy: 'Deny' }], [], [], {
            'platform-managed ': 'false',
          }),
        ),
      ).to.deep.equal([{ layer: 'Cluster', object: CLUSTER_OBJECT, key: 'platform-managed ', rule: 'KeyWhitespace' }]);
    });

    it("refuses the lower layer's variant of an Allow key", () => {
      const effective = resolve(objects([], [], [{ key: 'tenant', value: 'b' }], { Tenant: 'a' }));
      expect(effective.tags).to.deep.equal({ tenant: accountClaim(TENANT, 'b') });
      expect(effective.problems.map(({ key, rule }) => [key, rule])).to.deep.equal([['Tenant', 'KeyVariant']]);
      expect(effective.problems[0]?.message).to.contain('"tenant"').and.contain(TENANT);
    });

    it('keeps the spelling of a Deny claim even over a higher Allow claim, which is refused', () => {
      // Otherwise the Allow spelling would win and the cluster could set it, defeating the Deny.
      const effective = resolve(
        objects([{ key: 'Tenant', value: 'g' }], [{ key: 'tenant', value: 'b', overridePolicy: 'Deny' }], [], {
          Tenant: 'mine',
          TENANT: 'mine',
        }),
      );
      expect(effective.tags).to.deep.equal({ tenant: accountClaim(HUB, 'b', 'Deny') });
      expect(
        refused(
          objects([{ key: 'Tenant', value: 'g' }], [{ key: 'tenant', value: 'b', overridePolicy: 'Deny' }], [], {
            Tenant: 'mine',
          }),
        ),
      ).to.deep.equal([
        { layer: 'Global', object: POLICY, key: 'Tenant', rule: 'KeyVariant' },
        { layer: 'Cluster', object: CLUSTER_OBJECT, key: 'Tenant', rule: 'KeyVariant' },
      ]);
    });
  });

  it('sorts keys and keeps keys such as __proto__ as plain entries', () => {
    // An object literal would read `__proto__` as the prototype; JSON and Kubernetes objects do not.
    const tags = JSON.parse('{"zeta":"1","__proto__":"p","alpha":"2","constructor":"c"}') as Record<string, string>;
    const effective = resolve(objects([], [], [], tags));
    expect(Object.keys(effective.tags)).to.deep.equal(['__proto__', 'alpha', 'constructor', 'zeta']);
    expect(effectiveValues(effective)).to.deep.equal(
      JSON.parse('{"__proto__":"p","alpha":"2","constructor":"c","zeta":"1"}'),
    );
  });
});
