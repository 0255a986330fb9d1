import type { LabelSelector, ResourceTag, TagConflict, TagSource } from '@keymaster/api';
import { expect } from 'chai';
import {
  ClusterMemory,
  effectiveValues,
  policySelects,
  resolveEffectiveTags,
  selectedPolicies,
  standingLayers,
  tagLayers,
  planTags,
  tagPoliciesOf,
  type LayerName,
} from '../src/index.js';
import {
  cluster,
  CLUSTER,
  CLUSTER_OBJECT,
  instanceArn,
  memoryOf,
  owned,
  policy,
  POLICY,
  roleIdentity,
  selectedPolicy,
} from './fixtures.js';

const PROD: LabelSelector = { matchLabels: { env: 'prod' } };
const PAYMENTS: LabelSelector = { matchLabels: { team: 'payments' } };
const tags = (entries: Record<string, string>, overridePolicy?: 'Allow' | 'Deny'): ResourceTag[] =>
  Object.entries(entries).map(([key, value]) => ({ key, value, ...(overridePolicy ? { overridePolicy } : {}) }));

describe('policy by selection', () => {
  describe('policySelects', () => {
    const rows: {
      title: string;
      selectors: Parameters<typeof selectedPolicy>[1];
      clusterLabels?: Record<string, string>;
      namespaceLabels: Record<string, string>;
      selects: boolean;
    }[] = [
      {
        title: "the cluster's labels",
        selectors: { clusterSelector: PROD },
        clusterLabels: { env: 'prod' },
        namespaceLabels: {},
        selects: true,
      },
      {
        title: 'other cluster labels',
        selectors: { clusterSelector: PROD },
        clusterLabels: { env: 'dev' },
        namespaceLabels: { env: 'prod' },
        selects: false,
      },
      {
        title: "the namespace's labels",
        selectors: { namespaceSelector: PAYMENTS },
        namespaceLabels: { team: 'payments' },
        selects: true,
      },
      {
        title: "the namespace's labels, not the cluster's",
        selectors: { namespaceSelector: PAYMENTS },
        clusterLabels: { team: 'payments' },
        namespaceLabels: {},
        selects: false,
      },
      {
        title: 'both selectors, both match',
        selectors: { clusterSelector: PROD, namespaceSelector: PAYMENTS },
        clusterLabels: { env: 'prod' },
        namespaceLabels: { team: 'payments' },
        selects: true,
      },
      {
        title: 'both selectors ANDed: the namespace does not match',
        selectors: { clusterSelector: PROD, namespaceSelector: PAYMENTS },
        clusterLabels: { env: 'prod' },
        namespaceLabels: { team: 'web' },
        selects: false,
      },
      {
        title: 'an expression',
        selectors: {
          clusterSelector: { matchExpressions: [{ key: 'env', operator: 'In', values: ['prod', 'staging'] }] },
        },
        clusterLabels: { env: 'staging' },
        namespaceLabels: {},
        selects: true,
      },
      {
        title: 'an empty selector',
        selectors: { clusterSelector: {} },
        clusterLabels: { env: 'prod' },
        namespaceLabels: {},
        selects: false,
      },
      {
        title: 'no selector at all',
        selectors: {},
        clusterLabels: { env: 'prod' },
        namespaceLabels: {},
        selects: false,
      },
    ];
    for (const row of rows)
      it(`${row.selects ? 'selects' : 'does not select'} by ${row.title}`, () => {
        const chosen = selectedPolicy('p', row.selectors, []);
        expect(policySelects(chosen, cluster({}, row.clusterLabels), row.namespaceLabels)).to.equal(row.selects);
      });

    it('never takes the policy "default" for a selected one, whatever it says', () => {
      const global = { ...policy([]), spec: { clusterSelector: PROD } };
      expect(policySelects(global, cluster({}, { env: 'prod' }), {})).to.equal(false);
      expect(tagPoliciesOf([global], cluster({}, { env: 'prod' }), {})).to.deep.equal({ policy: global, selected: [] });
    });
  });

  it('orders selected policies lowest precedence first, of equal precedence the name last in order first', () => {
    const policies = [
      selectedPolicy('b-team', { clusterSelector: PROD }, [], 10),
      selectedPolicy('a-team', { clusterSelector: PROD }, [], 10),
      selectedPolicy('z-low', { clusterSelector: PROD }, []),
      selectedPolicy('high', { clusterSelector: PROD }, [], 500),
      selectedPolicy('other', { clusterSelector: { matchLabels: { env: 'dev' } } }, [], 900),
    ];
    const names = selectedPolicies(policies, cluster({}, { env: 'prod' }), {}).map(({ metadata }) => metadata.name);
    expect(names).to.deep.equal(['z-low', 'b-team', 'a-team', 'high']);
  });

  describe('resolveEffectiveTags with selected layers', () => {
    const LOW = 'AWSTagPolicy/low';
    const HIGH = 'AWSTagPolicy/high';
    const claim = (
      layer: TagSource['layer'],
      object: string,
      value: string,
      overridePolicy?: 'Allow' | 'Deny',
    ): TagSource =>
      layer === 'Cluster'
        ? { layer, object, value }
        : { layer, object, value, overridePolicy: overridePolicy ?? 'Allow' };
    const rows: {
      title: string;
      global?: ResourceTag[];
      low?: ResourceTag[];
      high?: ResourceTag[];
      highPrecedence?: number;
      account?: ResourceTag[];
      clusterTags?: Record<string, string>;
      winner: TagSource;
      conflict?: Omit<TagConflict, 'key'>;
    }[] = [
      {
        title: 'a selected policy overrides the global one',
        global: tags({ env: 'g' }),
        low: tags({ env: 's' }),
        winner: claim('Selected', LOW, 's'),
        conflict: { winner: claim('Selected', LOW, 's'), loser: claim('Global', POLICY, 'g') },
      },
      {
        title: 'the account and the cluster override a selected policy',
        low: tags({ env: 's' }),
        account: tags({ env: 'a' }),
        clusterTags: { env: 'c' },
        winner: claim('Cluster', CLUSTER_OBJECT, 'c'),
        conflict: {
          winner: claim('Cluster', CLUSTER_OBJECT, 'c'),
          loser: claim('Account', 'AWSClusterRoleIdentity/tenant-b', 'a'),
        },
      },
      {
        title: "a selected Deny holds against the account's and the cluster's",
        low: tags({ env: 's' }, 'Deny'),
        account: tags({ env: 'a' }),
        clusterTags: { env: 'c' },
        winner: claim('Selected', LOW, 's', 'Deny'),
        conflict: { winner: claim('Selected', LOW, 's', 'Deny'), loser: claim('Cluster', CLUSTER_OBJECT, 'c') },
      },
      {
        title: 'a global Deny holds against a selected policy',
        global: tags({ env: 'g' }, 'Deny'),
        high: tags({ env: 's' }, 'Deny'),
        highPrecedence: 100,
        winner: claim('Global', POLICY, 'g', 'Deny'),
        conflict: { winner: claim('Global', POLICY, 'g', 'Deny'), loser: claim('Selected', HIGH, 's', 'Deny') },
      },
      {
        title: 'the higher precedence wins between two selected policies',
        low: tags({ env: 'low' }),
        high: tags({ env: 'high' }),
        highPrecedence: 100,
        winner: claim('Selected', HIGH, 'high'),
        conflict: { winner: claim('Selected', HIGH, 'high'), loser: claim('Selected', LOW, 'low') },
      },
      {
        title: 'precedence, not Deny, decides between selected policies',
        low: tags({ env: 'low' }, 'Deny'),
        high: tags({ env: 'high' }),
        highPrecedence: 100,
        winner: claim('Selected', HIGH, 'high'),
        conflict: { winner: claim('Selected', HIGH, 'high'), loser: claim('Selected', LOW, 'low', 'Deny') },
      },
      {
        title: 'of equal precedence the name first in order wins, and the conflict is reported',
        low: tags({ env: 'low' }),
        high: tags({ env: 'high' }),
        highPrecedence: 0,
        winner: claim('Selected', HIGH, 'high'),
        conflict: { winner: claim('Selected', HIGH, 'high'), loser: claim('Selected', LOW, 'low') },
      },
      {
        title: 'two selected policies of one value are no conflict',
        low: tags({ env: 'prod' }),
        high: tags({ env: 'prod' }),
        winner: claim('Selected', HIGH, 'prod'),
      },
    ];
    for (const row of rows)
      it(row.title, () => {
        const labelled = cluster(row.clusterTags ?? {}, { env: 'prod' });
        const all = [
          policy(row.global ?? []),
          selectedPolicy('low', { clusterSelector: PROD }, row.low ?? []),
          selectedPolicy('high', { clusterSelector: PROD }, row.high ?? [], row.highPrecedence),
        ];
        const layers = tagLayers({
          ...tagPoliciesOf(all, labelled, {}),
          identities: [roleIdentity('tenant-b', row.account ?? [])],
          cluster: labelled,
        });
        const effective = resolveEffectiveTags(layers);
        expect(effective.tags['env']).to.deep.equal(row.winner);
        expect(effective.conflicts).to.deep.equal(row.conflict ? [{ key: 'env', ...row.conflict }] : []);
      });

    it('puts the selected layers between the global one and the chain, with their provenance', () => {
      const labelled = cluster({ c: '4' }, { env: 'prod' });
      const layers = tagLayers({
        ...tagPoliciesOf(
          [policy(tags({ a: '1' })), selectedPolicy('prod', { clusterSelector: PROD }, tags({ b: '2' }))],
          labelled,
          {},
        ),
        identities: [roleIdentity('tenant-b', tags({ d: '3' }))],
        cluster: labelled,
      });
      expect(layers.map(({ layer, object }) => `${layer} ${object}`)).to.deep.equal([
        `Global ${POLICY}`,
        'Selected AWSTagPolicy/prod',
        'Account AWSClusterRoleIdentity/tenant-b',
        `Cluster ${CLUSTER_OBJECT}`,
      ]);
      expect(effectiveValues(resolveEffectiveTags(layers))).to.deep.equal({ a: '1', b: '2', c: '4', d: '3' });
    });
  });

  describe('standingLayers', () => {
    const NOW = new Date('2026-01-01T12:00:00Z');
    const aged = (created: string, deleting = false) => {
      const chosen = selectedPolicy('prod', { clusterSelector: PROD }, tags({ env: 'prod' }));
      return {
        ...chosen,
        metadata: {
          ...chosen.metadata,
          creationTimestamp: created,
          ...(deleting ? { deletionTimestamp: created } : {}),
        },
      };
    };
    const rows = [
      { title: 'a selecting policy past the grace period', selected: [aged('2026-01-01T11:00:00Z')], stands: true },
      { title: 'one of several', selected: [aged('2026-01-01T11:59:00Z'), aged('2026-01-01T11:00:00Z')], stands: true },
      { title: 'no policy selects the cluster (deselected)', selected: [], stands: false },
      { title: 'created within the grace period', selected: [aged('2026-01-01T11:59:00Z')], stands: false },
      { title: 'being deleted', selected: [aged('2026-01-01T11:00:00Z', true)], stands: false },
    ];
    for (const row of rows)
      it(`the selected layer ${row.stands ? 'stands' : 'does not stand'}: ${row.title}`, () => {
        const layers = standingLayers({ selected: row.selected, identities: [] }, { now: NOW });
        expect(layers.includes('Selected')).to.equal(row.stands);
      });
  });

  it("keeps the selected layer's prints in the ledger's own field, and reads an older ledger as without them", () => {
    const memory = ClusterMemory.fromLedger([{ resources: ['0a+Oaq4TGyIhKGoG'], global: ['I6-DwcGWZgVG'] }]);
    expect(memory.toLedger()).to.deep.equal([{ resources: ['0a+Oaq4TGyIhKGoG'], global: ['I6-DwcGWZgVG'] }]);
    const arn = 'arn:aws:ec2:eu-west-1:111122223333:instance/i-1';
    const remembered = memory.of(arn);
    remembered.write('Selected', 'env', 'prod');
    memory.set(arn, remembered);
    expect(memory.of(arn).writer('env', 'prod')).to.equal('Selected');
    expect(ClusterMemory.fromLedger(memory.toLedger()).of(arn).prints().selected).to.have.length(1);
  });

  describe('removal when a cluster is no longer selected (removalPolicy Delete)', () => {
    const ARN = instanceArn('i-1');
    const rows: {
      title: string;
      live: Record<string, string>;
      written: Record<string, string>;
      stands: LayerName[];
      removed: ResourceTag[];
    }[] = [
      {
        title: 'removes what Keymaster wrote from the selected layer while it stands (another policy still selects)',
        live: { cost: '1' },
        written: { cost: '1' },
        stands: ['Selected', 'Cluster'],
        removed: [{ key: 'cost', value: '1' }],
      },
      {
        title: 'keeps it once no selected policy stands for the cluster (deselected, or within the grace period)',
        live: { cost: '1' },
        written: { cost: '1' },
        stands: ['Cluster'],
        removed: [],
      },
      {
        title: 'never removes a value Keymaster did not write, whatever selected it',
        live: { cost: '1' },
        written: {},
        stands: ['Selected', 'Cluster'],
        removed: [],
      },
      {
        title: 'never removes a value someone changed since Keymaster wrote it',
        live: { cost: '2' },
        written: { cost: '1' },
        stands: ['Selected', 'Cluster'],
        removed: [],
      },
    ];
    for (const row of rows)
      it(row.title, () => {
        const plan = planTags({
          clusterName: CLUSTER,
          effective: resolveEffectiveTags(tagLayers({ identities: [], cluster: cluster({}) })),
          resources: { [ARN]: { ...owned(), ...row.live } },
          removalPolicy: 'Delete',
          standingLayers: row.stands,
          memory: memoryOf({ [ARN]: { Selected: row.written } }),
        });
        expect(plan.resources[0]!.remove).to.deep.equal(row.removed);
      });
  });
});
