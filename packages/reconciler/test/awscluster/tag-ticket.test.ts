import { expect } from 'chai';
import type { AWSCluster, AWSTagPolicy } from '@keymaster/api';
import type { IdentityObject, IdentitySession } from '@keymaster/identity';
import { tagTicket as ticketOf, tagTicketParts } from '../../src/awscluster/tag-ticket.js';

const cluster = (generation: number, resourceVersion = '1', spec: AWSCluster['spec'] = { region: 'us-west-2' }) =>
  ({
    metadata: { name: 'prod', namespace: 'team-a', uid: 'c-1', generation, resourceVersion },
    spec,
  }) as AWSCluster;
/** The cluster edited: its spec as given, its generation moved. */
const edited = (spec: Partial<AWSCluster['spec']>) => cluster(2, '2', { region: 'us-west-2', ...spec });
const identity = (generation: number, uid = 'i-1', resourceVersion = '1') =>
  ({
    kind: 'AWSClusterStaticIdentity',
    metadata: { name: 'tenant-a', uid, generation, resourceVersion },
    spec: {},
  }) as unknown as IdentityObject;
const policy = (generation: number, name = 'default') =>
  ({ metadata: { name, uid: `p-${name}`, generation }, spec: {} }) as unknown as AWSTagPolicy;
const session = (accountId = '111111111111') =>
  ({ accountId, principalArn: `arn:aws:iam::${accountId}:user/u`, chain: [] }) as unknown as IdentitySession;

const tagTicket = (input: Parameters<typeof tagTicketParts>[0]) => ticketOf(tagTicketParts(input));

describe('tagTicket', () => {
  const base = {
    cluster: cluster(1),
    session: session(),
    chain: [identity(1)],
    policies: { policy: policy(1), selected: [policy(1, 'prod')], clusterAPICompanion: false },
    rivals: 0,
  };
  const ticket = tagTicket(base);

  it('stays the same when only status or metadata moved (resourceVersion): finished work still applies', () => {
    expect(tagTicket({ ...base, cluster: cluster(1, '99'), chain: [identity(1, 'i-1', '42')] })).to.equal(ticket);
  });

  it('changes with any input of the tag work: specs, a re-created object, the selected policies, whether the ClusterAPI layer is read, the account, rivals', () => {
    const changed = [
      { ...base, cluster: edited({ additionalTags: { team: 'a' } }) },
      { ...base, cluster: edited({ region: 'eu-west-1' }) },
      { ...base, cluster: { ...cluster(1), metadata: { ...cluster(1).metadata, uid: 'c-2' } } },
      { ...base, chain: [identity(2)] },
      { ...base, chain: [identity(1, 'i-2')] },
      { ...base, chain: [] },
      { ...base, policies: { ...base.policies, policy: policy(2) } },
      { ...base, policies: { ...base.policies, policy: undefined } },
      // A label edit of the cluster or its namespace changes no generation, only which policies select it.
      { ...base, policies: { ...base.policies, selected: [] } },
      { ...base, policies: { ...base.policies, selected: [policy(2, 'prod')] } },
      { ...base, policies: { ...base.policies, selected: [policy(1, 'prod'), policy(1, 'pci')] } },
      // An owner reference or the namespace's adopt label changes no generation either.
      { ...base, policies: { ...base.policies, clusterAPICompanion: true } },
      { ...base, session: session('222222222222') },
      { ...base, rivals: 1 },
    ].map((input) => tagTicket(input));
    for (const other of changed) expect(other).to.not.equal(ticket);
    expect(new Set(changed).size).to.equal(changed.length);
  });

  it("puts tag edits (the cluster's own, a policy's, an identity's) in the layers part, and what discovery depends on in the discovery part", () => {
    const parts = tagTicketParts(base);
    const layerEdits = [
      { ...base, cluster: edited({ additionalTags: { team: 'a' } }) },
      { ...base, chain: [identity(2)] },
      { ...base, policies: { ...base.policies, policy: policy(2) } },
      { ...base, policies: { ...base.policies, selected: [] } },
      { ...base, policies: { ...base.policies, clusterAPICompanion: true } },
    ].map(tagTicketParts);
    for (const edited of layerEdits) {
      expect(edited.discovery).to.equal(parts.discovery);
      expect(edited.layers).to.not.equal(parts.layers);
    }
    const otherCredentials = { ...session(), key: 'other-credential-set' };
    const discoveryChanges = [
      { ...base, cluster: { ...cluster(1), metadata: { ...cluster(1).metadata, uid: 'c-2' } } },
      { ...base, cluster: edited({ region: 'eu-west-1' }) },
      { ...base, cluster: edited({ tagging: { extraRegions: ['eu-west-1'] } }) },
      { ...base, cluster: edited({ tagging: { paused: true } }) },
      { ...base, cluster: edited({ clusterName: 'other' }) },
      { ...base, session: session('222222222222') },
      { ...base, session: otherCredentials },
      { ...base, rivals: 1 },
    ].map(tagTicketParts);
    for (const changed of discoveryChanges) expect(changed.discovery).to.not.equal(parts.discovery);
  });
});
