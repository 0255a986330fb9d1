import { API_VERSION, PAUSED_ANNOTATION, type AWSCluster, type AWSClusterLedger } from '@keymaster/api';
import { legacyClaimOf } from '@keymaster/tagging';
import { expect } from 'chai';
import { ClusterLedger } from '../../src/awscluster/cluster-ledger.js';
import { ClusterNames, type Claimant } from '../../src/awscluster/cluster-names.js';
import { clusterNameOf, nameClaim, nameCondition, type NameClaim } from '../../src/awscluster/name-claim.js';
import { LedgerClaims } from '../../src/kube/ledger-claims.js';

const ACCOUNT = '111111111111';
const REGION = 'eu-west-1';

function awsCluster(namespace: string, created: string, extra: Partial<AWSCluster['metadata']> = {}): AWSCluster {
  return {
    apiVersion: API_VERSION,
    kind: 'AWSCluster',
    metadata: { namespace, name: 'prod', creationTimestamp: created, uid: `uid-${namespace}`, ...extra },
    spec: { region: REGION },
  };
}
const claimantOf = (cluster: AWSCluster): Claimant => ({
  key: `${cluster.metadata.namespace}/prod`,
  clusterName: clusterNameOf(cluster),
  accountId: ACCOUNT,
  regions: [REGION],
});

const older = awsCluster('tenant-b', '2026-01-01T00:00:00Z');
const younger = awsCluster('tenant-a', '2026-02-01T00:00:00Z');
/** When the ledger CRD was created (the upgrade): clusters before it may carry legacy tags. */
const EPOCH = Date.parse('2026-01-15T00:00:00Z');

/** A ledger of `cluster` claiming its name since `since`, controlled by `owner` (the cluster's UID by default). */
const ledgerOf = (cluster: AWSCluster, since: string, owner = cluster.metadata.uid!): AWSClusterLedger => ({
  apiVersion: API_VERSION,
  kind: 'AWSClusterLedger',
  metadata: {
    namespace: cluster.metadata.namespace!,
    name: 'prod',
    uid: `ledger-${cluster.metadata.namespace}`,
    resourceVersion: '1',
    ownerReferences: [{ apiVersion: API_VERSION, kind: 'AWSCluster', name: 'prod', uid: owner, controller: true }],
  },
  spec: { claims: [{ accountID: ACCOUNT, region: REGION, clusterName: clusterNameOf(cluster), since }] },
});

/** The ledgers of a management cluster, their claims index, and the writes made to them. */
class Ledgers {
  readonly stored = new Map<string, AWSClusterLedger>();
  readonly writes: AWSClusterLedger[] = [];

  constructor(...ledgers: AWSClusterLedger[]) {
    for (const ledger of ledgers) this.stored.set(`${ledger.metadata.namespace}/${ledger.metadata.name}`, ledger);
  }

  of(cluster: AWSCluster): ClusterLedger {
    const store = {
      get: (namespace: string, name: string) => this.stored.get(`${namespace}/${name}`),
      write: (ledger: AWSClusterLedger) => {
        this.writes.push(ledger);
        this.stored.set(`${ledger.metadata.namespace}/${ledger.metadata.name}`, ledger);
        return Promise.resolve(ledger);
      },
    };
    const legacyEligible = Date.parse(cluster.metadata.creationTimestamp!) < EPOCH;
    return new ClusterLedger(cluster, {
      store,
      now: () => new Date('2026-03-01T00:00:00Z'),
      legacyEligible,
      onFull: () => undefined,
    });
  }

  claims(): LedgerClaims {
    const index = new LedgerClaims();
    for (const ledger of this.stored.values()) index.set(ledger);
    return index;
  }
}

/** The claim of `cluster` when `clusters` share its name and resolved into one account. */
function claimOf(cluster: AWSCluster, ledgers: Ledgers, clusters = [older, younger], names?: ClusterNames): NameClaim {
  const registry = names ?? new ClusterNames();
  if (!names) for (const item of clusters) registry.record(claimantOf(item));
  const index = ledgers.claims();
  return nameClaim(cluster, claimantOf(cluster), {
    names: registry,
    clusters,
    claiming: (accountId, region, clusterName) => index.claiming(accountId, region, clusterName),
    ledger: ledgers.of(cluster),
    legacyEligible: (candidate) => Date.parse(candidate.metadata.creationTimestamp!) < EPOCH,
  });
}

/** The owner check's verdict, as the tag work asks it once discovery found `legacyClaims`. */
async function decide(cluster: AWSCluster, ledgers: Ledgers, legacyClaims: string[] = [], clusters?: AWSCluster[]) {
  const claim = claimOf(cluster, ledgers, clusters);
  if (!('check' in claim)) throw new Error(`expected a check, got ${JSON.stringify(claim)}`);
  return claim.check(ledgers.of(cluster)).decide(new Set(legacyClaims));
}

describe('nameClaim', () => {
  it('gives an unclaimed name to the oldest rival, which records its claim before it answers', async () => {
    const ledgers = new Ledgers();
    expect(await decide(younger, ledgers)).to.include({ owner: false });
    expect(ledgers.writes, 'the refused cluster records nothing').to.deep.equal([]);
    expect(await decide(older, ledgers)).to.deep.equal({ owner: true });
    expect(ledgers.writes.map(({ metadata, spec }) => [metadata.ownerReferences, spec.claims])).to.deep.equal([
      [
        [{ apiVersion: API_VERSION, kind: 'AWSCluster', name: 'prod', uid: older.metadata.uid, controller: true }],
        [{ accountID: ACCOUNT, region: REGION, clusterName: 'prod', since: '2026-03-01T00:00:00.000Z' }],
      ],
    ]);
    const claim = claimOf(older, ledgers);
    expect('check' in claim && claim.rivals).to.equal(1);
  });

  it('keeps the name with the cluster whose ledger claims it, even a younger one: the older is refused before any AWS call', async () => {
    const ledgers = new Ledgers(ledgerOf(younger, '2026-02-02T00:00:00Z'));
    expect(claimOf(older, ledgers)).to.have.property('refused');
    expect(await decide(younger, ledgers)).to.deep.equal({ owner: true });
    expect(ledgers.writes, 'a claim held is not written again').to.deep.equal([]);
  });

  it('keeps the name with a paused owner, and one whose identity is refused: only going releases it', () => {
    const paused = awsCluster('tenant-b', older.metadata.creationTimestamp!, {
      annotations: { [PAUSED_ANNOTATION]: '' },
    });
    const ledgers = new Ledgers(ledgerOf(paused, '2026-01-02T00:00:00Z'));
    const names = new ClusterNames();
    names.record(claimantOf(younger));
    names.refuse('tenant-b/prod', 'prod');
    expect(claimOf(younger, ledgers, [paused, younger], names)).to.have.property('refused');
  });

  it('counts no claim of a ledger whose cluster is gone, or that another cluster of that name left behind', async () => {
    const gone = awsCluster('tenant-z', '2025-01-01T00:00:00Z');
    const left = ledgerOf(older, '2025-06-01T00:00:00Z', 'uid-of-a-deleted-cluster');
    const ledgers = new Ledgers(ledgerOf(gone, '2025-01-01T00:00:00Z'), left);
    expect(await decide(older, ledgers)).to.deep.equal({ owner: true });
    // The ledger left behind is taken over: this cluster's claim and owner, nothing of the other's.
    expect(ledgers.writes.at(-1)!.metadata.ownerReferences![0]!.uid).to.equal(older.metadata.uid);
    expect(ledgers.writes.at(-1)!.metadata.resourceVersion).to.equal('1');
  });

  it('lets the earliest claim win should two ledgers claim one name, then the UID', () => {
    const ledgers = new Ledgers(ledgerOf(older, '2026-02-02T00:00:00Z'), ledgerOf(younger, '2026-02-01T00:00:00Z'));
    expect(claimOf(older, ledgers)).to.have.property('refused');
    expect(claimOf(younger, ledgers)).to.have.property('check');
    const tied = new Ledgers(ledgerOf(older, '2026-02-01T00:00:00Z'), ledgerOf(younger, '2026-02-01T00:00:00Z'));
    // uid-tenant-a < uid-tenant-b
    expect(claimOf(older, tied)).to.have.property('refused');
  });

  describe('while legacy bookkeeping tags are converted', () => {
    const alsoOld = awsCluster('tenant-a', '2026-01-10T00:00:00Z');

    it('gives the name to the cluster whose legacy claim the resources carry, as releases up to 0.2.0 did', async () => {
      const found = [legacyClaimOf('tenant-a', 'prod')];
      expect(await decide(older, new Ledgers(), found, [older, alsoOld])).to.include({ owner: false });
      expect(await decide(alsoOld, new Ledgers(), found, [older, alsoOld])).to.deep.equal({ owner: true });
    });

    it('counts no legacy claim of a cluster created after the upgrade: no older release ever tagged for it', async () => {
      const forged = [legacyClaimOf('tenant-a', 'prod')];
      expect(await decide(older, new Ledgers(), forged)).to.deep.equal({ owner: true });
      expect(await decide(younger, new Ledgers(), forged)).to.include({ owner: false });
    });

    it("counts no legacy claim against a ledger's", () => {
      const ledgers = new Ledgers(ledgerOf(alsoOld, '2026-02-01T00:00:00Z'));
      expect(claimOf(older, ledgers, [older, alsoOld])).to.have.property('refused');
    });
  });

  describe('of EKS names (CAPA names an EKS cluster <namespace>_<name>)', () => {
    const eks = (namespace: string, clusterName: string, created: string): AWSCluster => {
      const cluster = awsCluster(namespace, created);
      return { ...cluster, spec: { ...cluster.spec, clusterName } };
    };

    it('keeps two names that differ only in case apart: two clusters, each owning its own, exactly as written', async () => {
      const theirs = eks('tenant-b', 'tenant-a_prod-eks', '2026-01-01T00:00:00Z');
      const mine = eks('tenant-a', 'tenant-a_prod-EKS', '2026-02-01T00:00:00Z');
      const ledgers = new Ledgers(ledgerOf(theirs, '2026-01-02T00:00:00Z'));
      const claim = claimOf(mine, ledgers, [theirs, mine]);
      expect('check' in claim && claim.rivals, 'no rival').to.equal(0);
      expect(await decide(mine, ledgers, [], [theirs, mine])).to.deep.equal({ owner: true });
      expect(ledgers.writes.map(({ spec }) => spec.claims?.map(({ clusterName }) => clusterName))).to.deep.equal([
        ['tenant-a_prod-EKS'],
      ]);
    });

    it("refuses a tenant naming another namespace's EKS cluster, even an older cluster, once that one's ledger claims it", () => {
      const owner = eks('tenant-a', 'tenant-a_prod', '2026-02-01T00:00:00Z');
      const squatter = eks('tenant-b', 'tenant-a_prod', '2026-01-01T00:00:00Z');
      const ledgers = new Ledgers(ledgerOf(owner, '2026-02-02T00:00:00Z'));
      expect(claimOf(squatter, ledgers, [owner, squatter])).to.have.property('refused');
    });
  });

  it('never names the other cluster in what it tells the refused one', async () => {
    const ledgers = new Ledgers(ledgerOf(older, '2026-01-02T00:00:00Z'));
    const claim = claimOf(younger, ledgers);
    if (!('refused' in claim)) throw new Error('expected a refusal');
    const verdict = await decide(younger, new Ledgers());
    const condition = nameCondition(claimantOf(younger), 1, true);
    for (const text of [claim.refused, verdict.owner ? '' : verdict.message, condition.message]) {
      expect(text).to.include('prod').and.include(ACCOUNT);
      expect(text).not.to.include('tenant-b');
    }
    expect(condition).to.include({ status: 'False', reason: 'ClusterNameClaimed' });
    expect(nameCondition(claimantOf(older), 1, false)).to.include({ status: 'False', reason: 'DuplicateClusterName' });
    expect(nameCondition(claimantOf(older), 0, false)).to.include({ status: 'True' });
  });

  it('waits while an older cluster of the name is not checked yet, unless it is paused, deleting or refused', async () => {
    const names = new ClusterNames();
    names.record(claimantOf(younger));
    const ledgers = new Ledgers();
    expect(claimOf(younger, ledgers, [older, younger], names)).to.have.property('wait');
    const paused = awsCluster('tenant-b', older.metadata.creationTimestamp!, {
      annotations: { [PAUSED_ANNOTATION]: '' },
    });
    expect(claimOf(younger, ledgers, [paused, younger], names)).to.have.property('check');
    names.refuse('tenant-b/prod', 'prod');
    const claim = claimOf(younger, ledgers, [older, younger], names);
    if (!('check' in claim)) throw new Error('a refused cluster is checked');
    expect(await claim.check(ledgers.of(younger)).decide(new Set())).to.deep.equal({ owner: true });
  });

  it('does not wait for anyone when its own ledger already claims the name (after a restart)', () => {
    const names = new ClusterNames();
    names.record(claimantOf(younger));
    expect(
      claimOf(younger, new Ledgers(ledgerOf(younger, '2026-02-02T00:00:00Z')), [older, younger], names),
    ).to.have.property('check');
  });
});
