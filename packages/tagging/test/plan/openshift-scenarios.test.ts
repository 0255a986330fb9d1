import type { ResourceTag, TagConflict } from '@keymaster/api';
import { expect } from 'chai';
import { summarizePlan, type ResourcePlan } from '../../src/index.js';
import { CLUSTER_OBJECT, instanceArn, owned, planFor, POLICY } from '../fixtures.js';

/**
 * The scenarios of OpenShift's enhancement "Apply user defined tags to all AWS resources created by
 * OpenShift" (create, update, precedence, caveats), one row each. The Infrastructure resource's tags
 * map to the global layer (AWSTagPolicy), a kube resource's tags to the cluster layer (AWSCluster).
 */
interface Scenario {
  name: string;
  infrastructure?: ResourceTag[];
  kubeResource?: Record<string, string>;
  /** What Keymaster applied before (status.tagging.managedTags). */
  managedTags?: Record<string, string>;
  /** The resources' user tags besides their ownership tags. */
  live: Record<string, Record<string, string>>;
  expected: Record<string, Partial<ResourcePlan>>;
  conflicts?: TagConflict[];
  /** The managedTags recorded after the plan is applied. */
  nextManagedTags?: Record<string, string>;
}

const ARN = instanceArn('i-master-0');
const infra = (value: string): ResourceTag[] => [{ key: 'key_infra1', value }];
const many = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`tag-${i}`, 'x']));

const scenarios: Scenario[] = [
  {
    name: 'create 1: a tag with the same key on the resource is replaced',
    infrastructure: infra('value_infra1'),
    live: { [ARN]: { key_infra1: 'value_comp1' } },
    expected: {
      [ARN]: {
        outcome: 'Change',
        add: [],
        update: [{ key: 'key_infra1', from: 'value_comp1', to: 'value_infra1', reason: 'Adopted' }],
      },
    },
  },
  {
    name: 'create 2: a missing tag is created',
    infrastructure: infra('value_infra1'),
    live: { [ARN]: {} },
    expected: { [ARN]: { outcome: 'Change', add: [{ key: 'key_infra1', value: 'value_infra1' }] } },
  },
  {
    name: 'create 2, limit reached: reported before any call instead of failing',
    infrastructure: infra('value_infra1'),
    live: { [ARN]: many(48) },
    expected: {
      [ARN]: {
        outcome: 'OverLimit',
        add: [],
        // 48 + 2 ownership tags + the add (Keymaster's memory is in the ledger, not a tag).
        overLimit: { limit: 50, userTags: 51, withheld: [{ key: 'key_infra1', value: 'value_infra1' }] },
      },
    },
  },
  {
    name: 'update 1: the same key and value on the resource needs no call',
    infrastructure: infra('value_update1'),
    managedTags: { key_infra1: 'value_update1' },
    live: { [ARN]: { key_infra1: 'value_update1' } },
    expected: { [ARN]: { outcome: 'InSync', add: [], update: [] } },
  },
  {
    name: 'update 2: a new value replaces the old one',
    infrastructure: infra('value_update1'),
    managedTags: { key_infra1: 'value_old' },
    live: { [ARN]: { key_infra1: 'value_old' } },
    expected: {
      [ARN]: {
        outcome: 'Change',
        update: [{ key: 'key_infra1', from: 'value_old', to: 'value_update1', reason: 'PolicyChanged' }],
      },
    },
  },
  {
    name: 'precedence 1: the kube resource wins on create, and the conflict names both sides',
    infrastructure: infra('value1'),
    kubeResource: { key_infra1: 'value2' },
    live: { [ARN]: {} },
    expected: { [ARN]: { outcome: 'Change', add: [{ key: 'key_infra1', value: 'value2' }] } },
    conflicts: [
      {
        key: 'key_infra1',
        winner: { layer: 'Cluster', object: CLUSTER_OBJECT, value: 'value2' },
        loser: { layer: 'Global', object: POLICY, value: 'value1', overridePolicy: 'Allow' },
      },
    ],
  },
  {
    name: 'precedence 2: a tag added to the kube resource overrides the applied infrastructure value',
    infrastructure: infra('custom_value'),
    kubeResource: { key_infra1: 'value1' },
    managedTags: { key_infra1: 'custom_value' },
    live: { [ARN]: { key_infra1: 'custom_value' } },
    expected: {
      [ARN]: {
        outcome: 'Change',
        update: [{ key: 'key_infra1', from: 'custom_value', to: 'value1', reason: 'PolicyChanged' }],
      },
    },
    conflicts: [
      {
        key: 'key_infra1',
        winner: { layer: 'Cluster', object: CLUSTER_OBJECT, value: 'value1' },
        loser: { layer: 'Global', object: POLICY, value: 'custom_value', overridePolicy: 'Allow' },
      },
    ],
  },
  {
    // OpenShift merges older tags kept in status; Keymaster's status is a record of what it applied, not a layer.
    name: 'precedence 3: the layers win over what status recorded, and status adds no tags of its own',
    infrastructure: infra('spec'),
    managedTags: { key_infra1: 'status', key_status: 'status' },
    live: { [ARN]: {} },
    expected: { [ARN]: { outcome: 'Change', add: [{ key: 'key_infra1', value: 'spec' }] } },
    nextManagedTags: { key_infra1: 'spec' },
  },
  {
    name: 'caveat 1: a value edited with an external tool is set back',
    infrastructure: infra('value_infra1'),
    managedTags: { key_infra1: 'value_infra1' },
    live: { [ARN]: { key_infra1: 'value_comp1' } },
    expected: {
      [ARN]: {
        outcome: 'Change',
        update: [{ key: 'key_infra1', from: 'value_comp1', to: 'value_infra1', reason: 'Drift' }],
      },
    },
  },
  {
    name: 'caveat 2: a tag removed from the layers stays and is no longer managed, edited or not',
    managedTags: { key_infra1: 'value1' },
    live: { [ARN]: { key_infra1: 'value1' }, [instanceArn('i-worker-0')]: { key_infra1: 'edited' } },
    expected: {
      [ARN]: { outcome: 'InSync', remove: [] },
      [instanceArn('i-worker-0')]: { outcome: 'InSync', remove: [] },
    },
    nextManagedTags: {},
  },
  {
    name: 'caveat 3: an infrastructure tag reaches every managed resource',
    infrastructure: infra('value1'),
    live: {
      [ARN]: {},
      [instanceArn('i-worker-0')]: {},
      'arn:aws:elasticloadbalancing:eu-west-1:111122223333:loadbalancer/app/api/1': {},
    },
    expected: {
      [ARN]: { add: [{ key: 'key_infra1', value: 'value1' }] },
      [instanceArn('i-worker-0')]: { add: [{ key: 'key_infra1', value: 'value1' }] },
      'arn:aws:elasticloadbalancing:eu-west-1:111122223333:loadbalancer/app/api/1': {
        add: [{ key: 'key_infra1', value: 'value1' }],
      },
    },
  },
  {
    // OpenShift keeps no record of what it applied; Keymaster records it, which is what makes Delete safe.
    name: 'caveat 4: what was applied is recorded for the next reconciliation',
    infrastructure: [...infra('value1'), { key: 'team', value: 'b' }],
    live: { [ARN]: {} },
    expected: { [ARN]: { outcome: 'Change' } },
    nextManagedTags: { key_infra1: 'value1', team: 'b' },
  },
];

describe('the OpenShift user-defined tags scenarios', () => {
  for (const scenario of scenarios) {
    it(scenario.name, () => {
      const resources = Object.fromEntries(
        Object.entries(scenario.live).map(([arn, tags]) => [arn, { ...owned(), ...tags }]),
      );
      const plan = planFor({
        global: scenario.infrastructure ?? [],
        clusterTags: scenario.kubeResource ?? {},
        managedTags: scenario.managedTags ?? {},
        resources,
      });
      for (const [arn, expected] of Object.entries(scenario.expected)) {
        expect(plan.resources.find((resource) => resource.arn === arn)).to.deep.include(expected);
      }
      expect(plan.conflicts).to.deep.equal(scenario.conflicts ?? []);
      if (scenario.nextManagedTags) expect(summarizePlan(plan).managedTags).to.deep.equal(scenario.nextManagedTags);
    });
  }
});
