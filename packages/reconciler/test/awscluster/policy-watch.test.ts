import { expect } from 'chai';
import { API_VERSION, type AWSCluster, type AWSTagPolicy } from '@keymaster/api';
import type { V1Namespace } from '@kubernetes/client-node';
import { clustersOfPolicy } from '../../src/awscluster/policy-watch.js';
import { FakeInformer } from '../support/fake-informer.js';

const cluster = (namespace: string, name: string, labels: Record<string, string> = {}): AWSCluster => ({
  apiVersion: API_VERSION,
  kind: 'AWSCluster',
  metadata: { name, namespace, labels },
  spec: { region: 'eu-west-1' },
});
const namespace = (name: string, labels: Record<string, string> = {}): V1Namespace => ({ metadata: { name, labels } });
const policy = (name: string, spec: AWSTagPolicy['spec']): AWSTagPolicy => ({
  apiVersion: API_VERSION,
  kind: 'AWSTagPolicy',
  metadata: { name },
  spec,
});

describe('clustersOfPolicy: the clusters a tag policy event re-plans', () => {
  const clusters = new FakeInformer<AWSCluster>([
    cluster('payments', 'prod', { env: 'prod' }),
    cluster('payments', 'dev', { env: 'dev' }),
    cluster('web', 'prod', { env: 'prod' }),
    cluster('web', 'dev'),
  ]);
  const namespaces = new FakeInformer<V1Namespace>([namespace('payments', { team: 'payments' }), namespace('web')]);
  const mapped = clustersOfPolicy({ clusters, namespaces });
  const keys = (policyNow: AWSTagPolicy, before?: AWSTagPolicy) =>
    mapped(policyNow, before)
      .map(({ namespace: ns, name }) => `${ns ?? ''}/${name}`)
      .sort();
  const PROD = { matchLabels: { env: 'prod' } };
  const PAYMENTS = { matchLabels: { team: 'payments' } };

  const rows: { title: string; now: AWSTagPolicy; before?: AWSTagPolicy; expected: string[] }[] = [
    {
      title: 'every cluster for the global policy',
      now: policy('default', {}),
      expected: ['payments/dev', 'payments/prod', 'web/dev', 'web/prod'],
    },
    {
      title: 'the clusters a clusterSelector selects',
      now: policy('prod', { clusterSelector: PROD }),
      expected: ['payments/prod', 'web/prod'],
    },
    {
      title: 'the clusters of the namespaces a namespaceSelector selects',
      now: policy('payments', { namespaceSelector: PAYMENTS }),
      expected: ['payments/dev', 'payments/prod'],
    },
    {
      title: 'both selectors, ANDed',
      now: policy('both', { clusterSelector: PROD, namespaceSelector: PAYMENTS }),
      expected: ['payments/prod'],
    },
    {
      title: 'those it selected before an edit as well as those it selects now',
      now: policy('prod', { clusterSelector: { matchLabels: { env: 'dev' } } }),
      before: policy('prod', { clusterSelector: PROD }),
      expected: ['payments/dev', 'payments/prod', 'web/prod'],
    },
    {
      title: 'none when it selects no cluster',
      now: policy('none', { clusterSelector: { matchLabels: { env: 'staging' } } }),
      expected: [],
    },
  ];
  for (const row of rows) it(row.title, () => expect(keys(row.now, row.before)).to.deep.equal(row.expected));
});
