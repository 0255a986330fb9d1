import { expect } from 'chai';
import type { IdentityObject } from '@keymaster/identity';
import { CLAIMED_ACCOUNT, CLAIMED_AT, SHARED_WITH, accountOwnership } from '../../src/awscluster/account-owner.js';

const TENANT = 'keymaster.dev/tenant';
const NOW = new Date('2026-11-23T08:00:00Z');
const identity = (
  name: string,
  tenant?: string,
  annotations: Record<string, string> = {},
  created = '2026-01-01T00:00:00Z',
) =>
  ({
    apiVersion: 'infrastructure.keymaster.dev/v1beta1',
    kind: 'AWSClusterRoleIdentity',
    metadata: { name, creationTimestamp: created, annotations, ...(tenant ? { labels: { [TENANT]: tenant } } : {}) },
    spec: { roleARN: `arn:aws:iam::222222222222:role/${name}` },
  }) as unknown as IdentityObject;
const claim = (at: string) => ({ [CLAIMED_ACCOUNT]: '222222222222', [CLAIMED_AT]: at });

describe('accountOwnership', () => {
  it('an identity without a tenant label belongs to the platform: it claims nothing and is never refused', () => {
    const owner = identity('a', 'tenant-a', claim('2026-11-01T00:00:00Z'));
    expect(accountOwnership(identity('hub'), '222222222222', [owner], TENANT, NOW)).to.deep.equal({
      verdict: 'Unowned',
    });
  });

  it("claims an unclaimed account with the claim's time", () => {
    expect(accountOwnership(identity('a', 'tenant-a'), '222222222222', [], TENANT, NOW)).to.deep.equal({
      verdict: 'Claim',
      annotations: { [CLAIMED_ACCOUNT]: '222222222222', [CLAIMED_AT]: '2026-11-23T08:00:00.000Z' },
    });
  });

  it('the earliest claim wins, whatever the objects ages (clusterctl move re-creates them, annotations kept)', () => {
    // After a move, tenant-b's identity was re-created first, but tenant-a's claim is older.
    const a = identity('a', 'tenant-a', claim('2026-11-01T00:00:00Z'), '2026-11-23T07:59:00Z');
    const b = identity('b', 'tenant-b', claim('2026-11-02T00:00:00Z'), '2026-11-23T07:58:00Z');
    expect(accountOwnership(b, '222222222222', [a, b], TENANT, NOW)).to.include({ verdict: 'Claimed', owner: a });
    expect(accountOwnership(a, '222222222222', [a, b], TENANT, NOW)).to.deep.equal({ verdict: 'Owned' });
  });

  it('other identities of the owning tenant, and tenants the platform shares it with, may use the account', () => {
    const a = identity('a', 'tenant-a', { ...claim('2026-11-01T00:00:00Z'), [SHARED_WITH]: 'tenant-c, tenant-d' });
    expect(accountOwnership(identity('a2', 'tenant-a'), '222222222222', [a], TENANT, NOW)).to.deep.equal({
      verdict: 'Owned',
    });
    expect(accountOwnership(identity('d', 'tenant-d'), '222222222222', [a], TENANT, NOW)).to.deep.equal({
      verdict: 'Owned',
    });
    expect(accountOwnership(identity('b', 'tenant-b'), '222222222222', [a], TENANT, NOW).verdict).to.equal('Claimed');
  });

  it('ignores claims of identities no longer labelled with a tenant, and of other accounts', () => {
    const unlabelled = identity('x', undefined, claim('2026-11-01T00:00:00Z'));
    const elsewhere = identity('y', 'tenant-a', {
      [CLAIMED_ACCOUNT]: '333333333333',
      [CLAIMED_AT]: '2026-11-01T00:00:00Z',
    });
    expect(
      accountOwnership(identity('b', 'tenant-b'), '222222222222', [unlabelled, elsewhere], TENANT, NOW).verdict,
    ).to.equal('Claim');
  });
});
