import { API_VERSION, type AWSCluster, type AWSClusterLedger } from '@keymaster/api';
import { ClusterMemory, ResourceMemory } from '@keymaster/tagging';
import { expect } from 'chai';
import { ClusterLedger } from '../../src/awscluster/cluster-ledger.js';

const cluster: AWSCluster = {
  apiVersion: API_VERSION,
  kind: 'AWSCluster',
  metadata: { namespace: 'tenant-a', name: 'prod', uid: 'uid-prod', creationTimestamp: '2026-01-01T00:00:00Z' },
  spec: { region: 'eu-west-1' },
};
const NOW = '2026-03-01T00:00:00.000Z';
const arn = (i: number) => `arn:aws:ec2:eu-west-1:111111111111:instance/i-${String(i).padStart(17, '0')}`;

/** What Keymaster wrote: `tags` from the Cluster layer, on every resource of `arns`. */
function wrote(arns: string[], tags: Record<string, string>): ClusterMemory {
  const memory = new ClusterMemory();
  for (const resource of arns) {
    const remembered = new ResourceMemory();
    for (const [key, value] of Object.entries(tags)) remembered.write('Cluster', key, value);
    memory.set(resource, remembered);
  }
  return memory;
}

/** A ledger of the cluster kept in memory, and the writes made to it. */
function ledgerFor(options: { legacyEligible?: boolean; maxBytes?: number; stored?: AWSClusterLedger } = {}) {
  const writes: AWSClusterLedger[] = [];
  let stored = options.stored;
  let full = 0;
  const open = () =>
    new ClusterLedger(cluster, {
      store: {
        get: () => stored,
        write: (ledger) => {
          writes.push(ledger);
          stored = { ...ledger, metadata: { ...ledger.metadata, resourceVersion: String(writes.length) } };
          return Promise.resolve(stored);
        },
      },
      now: () => new Date(NOW),
      legacyEligible: options.legacyEligible ?? false,
      onFull: () => full++,
      ...(options.maxBytes ? { maxBytes: options.maxBytes } : {}),
    });
  return { open, writes, full: () => full };
}

describe('ClusterLedger', () => {
  it('is created with the first claim, written again only when what it records changes', async () => {
    const { open, writes } = ledgerFor();
    const ledger = open();
    await ledger.claim('111111111111', ['eu-west-1'], 'prod');
    await ledger.record(wrote([arn(1), arn(2)], { team: 'a' }), false);
    await open().record(wrote([arn(2), arn(1)], { team: 'a' }), false);
    await open().claim('111111111111', ['eu-west-1'], 'prod');
    expect(writes).to.have.length(2);
    expect(writes[0]!.metadata.resourceVersion, 'created').to.equal(undefined);
    expect(writes[1]!.metadata.resourceVersion, 'replaced').to.equal('1');
    // Not eligible for legacy tags (created after the upgrade): converted from the start, vacuously.
    expect(writes[1]!.spec).to.deep.include({ legacyTagsConverted: NOW });
    expect(open().memory.of(arn(1)).writer('team', 'a')).to.equal('Cluster');
  });

  it("keeps a claim's age, and drops claims where the cluster no longer acts", async () => {
    const { open, writes } = ledgerFor();
    await open().claim('111111111111', ['eu-west-1'], 'prod');
    await open().claim('111111111111', ['eu-west-1', 'us-east-1'], 'prod');
    await open().claim('222222222222', ['us-east-1'], 'prod');
    expect(
      writes.map(({ spec }) => spec.claims?.map(({ accountID, region }) => `${accountID}/${region}`)),
    ).to.deep.equal([
      ['111111111111/eu-west-1'],
      ['111111111111/eu-west-1', '111111111111/us-east-1'],
      ['222222222222/us-east-1'],
    ]);
  });

  it('marks legacy tags converted only once they were', async () => {
    const { open, writes } = ledgerFor({ legacyEligible: true });
    expect(open().convertLegacy).to.equal(true);
    await open().record(wrote([arn(1)], { team: 'a' }), false);
    expect(writes.at(-1)!.spec.legacyTagsConverted).to.equal(undefined);
    expect(open().convertLegacy).to.equal(true);
    await open().record(wrote([arn(1)], { team: 'a' }), true);
    expect(writes.at(-1)!.spec.legacyTagsConverted).to.equal(NOW);
    expect(open().convertLegacy).to.equal(false);
  });

  it('past its size, records nothing new, still forgets, and says so', async () => {
    const { open, writes, full } = ledgerFor({ maxBytes: 2000 });
    const few = [arn(1), arn(2)];
    await open().record(wrote(few, { team: 'a', env: 'dev' }), false);
    const many = Array.from({ length: 200 }, (_, i) => arn(i));
    // env dropped everywhere, team kept, 198 resources new: only team on the first two stays.
    expect(await open().record(wrote(many, { team: 'a' }), false)).to.deep.equal({ full: true });
    expect(full()).to.equal(1);
    const kept = open().memory;
    expect(kept.size).to.equal(2);
    expect(kept.of(arn(1)).writer('team', 'a')).to.equal('Cluster');
    expect(kept.of(arn(1)).writer('env', 'dev')).to.equal(undefined);
    expect(JSON.stringify(writes.at(-1)!.spec).length).to.be.below(2000);
  });

  it('holds nothing of a ledger another cluster of that name left behind, and takes it over at its first write', async () => {
    const left: AWSClusterLedger = {
      apiVersion: API_VERSION,
      kind: 'AWSClusterLedger',
      metadata: {
        namespace: 'tenant-a',
        name: 'prod',
        resourceVersion: '7',
        ownerReferences: [
          { apiVersion: API_VERSION, kind: 'AWSCluster', name: 'prod', uid: 'uid-gone', controller: true },
        ],
      },
      spec: {
        memory: wrote([arn(1)], { 'legal-hold': 'yes' }).toLedger(),
        legacyTagsConverted: '2025-01-01T00:00:00Z',
      },
    };
    const { open, writes } = ledgerFor({ stored: left });
    expect(open().memory.size).to.equal(0);
    await open().record(new ClusterMemory(), false);
    expect(writes[0]!.metadata).to.deep.include({ resourceVersion: '7' });
    expect(writes[0]!.metadata.ownerReferences![0]!.uid).to.equal('uid-prod');
    expect(writes[0]!.spec).to.deep.equal({ legacyTagsConverted: NOW });
  });
});
