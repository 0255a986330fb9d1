import { expect } from 'chai';
import {
  ADOPT_LABEL,
  ADOPT_LABEL_VALUE,
  API_VERSION,
  type AWSCluster,
  type AWSTagPolicy,
  type OwnerReference,
} from '@keymaster/api';
import { adoptedFrom } from '../../src/adoption/index.js';
import { clusterTagInput } from '../../src/awscluster/tag-input.js';

const ADOPTED = { [ADOPT_LABEL]: ADOPT_LABEL_VALUE };
const CLUSTER_UID = 'cluster-uid';

/** What the adoption caches hold: the Cluster API Cluster payments (CLUSTER_UID) and its namespace's labels. */
const adoption = (labels: Record<string, string>) => ({
  clusters: {
    get: (name: string) =>
      name === 'payments'
        ? {
            apiVersion: 'cluster.x-k8s.io/v1beta2',
            kind: 'Cluster',
            metadata: { name, namespace: 'tenant-b', uid: CLUSTER_UID },
            spec: {},
          }
        : undefined,
  },
  namespaces: { get: (name: string) => ({ metadata: { name, labels } }) },
});
const clusterOwner = (
  name = 'payments',
  apiVersion = 'cluster.x-k8s.io/v1beta2',
  uid = CLUSTER_UID,
): OwnerReference => ({
  apiVersion,
  kind: 'Cluster',
  name,
  uid,
  controller: true,
});

/** An AWSCluster with CAPA's tags in spec.clusterAPI, as the adoption controller writes a companion. */
const awsCluster = (ownerReferences: OwnerReference[], clusterRef = 'payments'): AWSCluster => ({
  apiVersion: API_VERSION,
  kind: 'AWSCluster',
  metadata: { name: 'payments', namespace: 'tenant-b', uid: 'companion-uid', ownerReferences },
  spec: {
    region: 'eu-west-1',
    clusterAPI: {
      clusterRef: { name: clusterRef },
      infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'AWSCluster', name: 'payments' },
      additionalTags: { tenant: 'x' },
    },
  },
});

describe('the ClusterAPI layer is read only for a companion', () => {
  const cases: { name: string; cluster: AWSCluster; labels: Record<string, string>; companion: boolean }[] = [
    {
      name: 'owned by the Cluster of its name, namespace adopted',
      cluster: awsCluster([clusterOwner()]),
      labels: ADOPTED,
      companion: true,
    },
    {
      name: 'the same, with another Cluster API version',
      cluster: awsCluster([clusterOwner('payments', 'cluster.x-k8s.io/v1beta1')]),
      labels: ADOPTED,
      companion: true,
    },
    { name: 'hand-made: no owner', cluster: awsCluster([]), labels: ADOPTED, companion: false },
    {
      name: 'a namespace without the adopt label',
      cluster: awsCluster([clusterOwner()]),
      labels: {},
      companion: false,
    },
    {
      name: 'the adopt label with another value',
      cluster: awsCluster([clusterOwner()]),
      labels: { [ADOPT_LABEL]: 'yes' },
      companion: false,
    },
    {
      name: 'owned by a Cluster of another name',
      cluster: awsCluster([clusterOwner('other')]),
      labels: ADOPTED,
      companion: false,
    },
    {
      name: "owned by another group's Cluster",
      cluster: awsCluster([clusterOwner('payments', 'example.com/v1')]),
      labels: ADOPTED,
      companion: false,
    },
    {
      name: "an ownerReference written by a tenant, to the Cluster's name but not its uid",
      cluster: awsCluster([clusterOwner('payments', 'cluster.x-k8s.io/v1beta2', 'forged-uid')]),
      labels: ADOPTED,
      companion: false,
    },
    {
      name: 'spec.clusterAPI naming another Cluster than its owner',
      cluster: awsCluster([clusterOwner()], 'other'),
      labels: ADOPTED,
      companion: false,
    },
  ];
  for (const { name, cluster, labels, companion } of cases) {
    it(`${companion ? 'reads' : 'ignores'} it: ${name}`, () => {
      const verdict = adoptedFrom(cluster, adoption(labels)) !== undefined;
      expect(verdict).to.equal(companion);
      // What the reconcile and `keymaster plan` act on: a Deny of the platform holds unless CAPA holds the key.
      const policy: AWSTagPolicy = {
        apiVersion: API_VERSION,
        kind: 'AWSTagPolicy',
        metadata: { name: 'default' },
        spec: { resourceTags: [{ key: 'tenant', value: 'b', overridePolicy: 'Deny' }] },
      };
      const input = clusterTagInput(
        cluster,
        [],
        { policy, selected: [], clusterAPICompanion: verdict },
        { now: new Date('2026-11-28T00:00:00Z') },
      );
      const { tags, held, problems } = input.effective;
      if (companion) {
        expect(held).to.have.keys('tenant');
        expect(tags).to.not.have.property('tenant');
        expect(problems).to.deep.equal([]);
      } else {
        expect(held).to.deep.equal({});
        expect(tags.tenant?.value).to.equal('b');
        expect(problems.map(({ rule }) => rule)).to.deep.equal(['UntrustedClusterAPI']);
      }
    });
  }
});
