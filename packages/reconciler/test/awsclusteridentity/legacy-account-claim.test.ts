import { expect } from 'chai';
import type { IdentityObject } from '@keymaster/identity';
import {
  CLAIMED_ACCOUNT,
  CLAIMED_AT,
  CONVERTED_FROM,
  SHARED_WITH,
  convertedBinding,
  legacyClaim,
} from '../../src/awsclusteridentity/legacy-account-claim.js';

const TENANT = 'keymaster.dev/tenant';
const ACCOUNT = '222222222222';
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
    spec: { roleARN: `arn:aws:iam::${ACCOUNT}:role/${name}` },
  }) as unknown as IdentityObject;
const claim = (at: string, account = ACCOUNT) => ({ [CLAIMED_ACCOUNT]: account, [CLAIMED_AT]: at });

describe('legacyClaim: what owned an account before AWSAccountBinding, decided as that release did', () => {
  it('the earliest claim wins, whatever the objects ages (clusterctl move re-creates them, annotations kept)', () => {
    // After a move, tenant-b's identity was re-created first, but tenant-a's claim is older.
    const a = identity('a', 'tenant-a', claim('2026-11-01T00:00:00Z'), '2026-11-23T07:59:00Z');
    const b = identity('b', 'tenant-b', claim('2026-11-02T00:00:00Z'), '2026-11-23T07:58:00Z');
    expect(legacyClaim(ACCOUNT, [b, a], TENANT)).to.deep.equal({
      owner: a,
      tenants: ['tenant-a'],
      claimedAt: '2026-11-01T00:00:00Z',
    });
  });

  it('lets in the tenants the platform shared the account with, leaving out what is no label value', () => {
    const a = identity('a', 'tenant-a', {
      ...claim('2026-11-01T00:00:00Z'),
      [SHARED_WITH]: ' tenant-c,, tenant-a, -bad, tenant-d ',
    });
    expect(legacyClaim(ACCOUNT, [a], TENANT)?.tenants).to.deep.equal(['tenant-a', 'tenant-c', 'tenant-d']);
  });

  it('ignores claims of identities no longer labelled with a tenant, and of other accounts', () => {
    const unlabelled = identity('x', undefined, claim('2026-11-01T00:00:00Z'));
    const elsewhere = identity('y', 'tenant-a', claim('2026-11-01T00:00:00Z', '333333333333'));
    expect(legacyClaim(ACCOUNT, [unlabelled, elsewhere], TENANT)).to.equal(undefined);
  });
});

describe('convertedBinding', () => {
  it('binds the account to the same tenants, and says which claim it came from', () => {
    const a = identity('a', 'tenant-a', { ...claim('2026-11-01T00:00:00Z'), [SHARED_WITH]: 'tenant-c' });
    expect(convertedBinding(ACCOUNT, legacyClaim(ACCOUNT, [a], TENANT)!)).to.deep.equal({
      apiVersion: 'infrastructure.keymaster.dev/v1beta1',
      kind: 'AWSAccountBinding',
      metadata: {
        name: ACCOUNT,
        annotations: { [CONVERTED_FROM]: 'AWSClusterRoleIdentity/a claimed it at 2026-11-01T00:00:00Z' },
      },
      spec: { tenants: ['tenant-a', 'tenant-c'] },
    });
  });
});
