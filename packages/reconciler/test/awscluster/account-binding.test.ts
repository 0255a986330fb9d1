import { expect } from 'chai';
import type { AWSAccountBinding } from '@keymaster/api';
import type { IdentityObject } from '@keymaster/identity';
import { accountVerdict, boundTenants } from '../../src/awscluster/account-binding.js';
import { CLAIMED_ACCOUNT, CLAIMED_AT, SHARED_WITH } from '../../src/awsclusteridentity/legacy-account-claim.js';

const TENANT = 'keymaster.dev/tenant';
const ACCOUNT = '222222222222';
const identity = (name: string, tenant?: string, annotations: Record<string, string> = {}) =>
  ({
    apiVersion: 'infrastructure.keymaster.dev/v1beta1',
    kind: 'AWSClusterRoleIdentity',
    metadata: { name, annotations, ...(tenant ? { labels: { [TENANT]: tenant } } : {}) },
    spec: { roleARN: `arn:aws:iam::${ACCOUNT}:role/${name}` },
  }) as unknown as IdentityObject;
const binding = (tenants?: string[]): AWSAccountBinding => ({
  apiVersion: 'infrastructure.keymaster.dev/v1beta1',
  kind: 'AWSAccountBinding',
  metadata: { name: ACCOUNT },
  spec: tenants ? { tenants } : {},
});

describe('accountVerdict', () => {
  const b = identity('tenant-b', 'tenant-b');

  it('lets an identity act in an account bound to its tenant, among others', () => {
    expect(accountVerdict(b, 'tenant-b', ACCOUNT, ['tenant-a', 'tenant-b'])).to.deep.equal({ allowed: true });
  });

  it('refuses an account bound to no tenant, naming the binding the platform must declare', () => {
    expect(accountVerdict(b, 'tenant-b', ACCOUNT, undefined)).to.deep.equal({
      allowed: false,
      reason: 'AccountNotBound',
      message:
        'AWSClusterRoleIdentity/tenant-b (tenant tenant-b) resolves into AWS account 222222222222, which the platform ' +
        "has bound to no tenant: nothing is tagged with it. If the account is tenant-b's, the platform declares it: an " +
        'AWSAccountBinding named 222222222222 with tenant-b in spec.tenants.',
    });
  });

  it("refuses another tenant's account without naming that tenant, with both fixes the platform has", () => {
    const verdict = accountVerdict(b, 'tenant-b', ACCOUNT, ['tenant-a']);
    expect(verdict).to.deep.equal({
      allowed: false,
      reason: 'AccountOfAnotherTenant',
      message:
        'AWSClusterRoleIdentity/tenant-b (tenant tenant-b) resolves into AWS account 222222222222, which the platform ' +
        'has bound to other tenants, not tenant-b: nothing is tagged with it. If the identity points at the wrong ' +
        'account, the platform fixes AWSClusterRoleIdentity/tenant-b; if the account is shared on purpose, it adds ' +
        'tenant-b to spec.tenants of AWSAccountBinding 222222222222.',
    });
    expect(accountVerdict(b, 'tenant-b', ACCOUNT, [])).to.include({ reason: 'AccountOfAnotherTenant' });
  });
});

describe('boundTenants', () => {
  const claimOf = (at: string, shared?: string) => ({
    [CLAIMED_ACCOUNT]: ACCOUNT,
    [CLAIMED_AT]: at,
    ...(shared === undefined ? {} : { [SHARED_WITH]: shared }),
  });

  it("is the binding's tenants (none listed: none), whatever claims an earlier release left", () => {
    const claiming = [identity('tenant-a', 'tenant-a', claimOf('2026-11-01T00:00:00Z'))];
    expect(boundTenants(binding(['tenant-c']), ACCOUNT, claiming, TENANT)).to.deep.equal(['tenant-c']);
    expect(boundTenants(binding(), ACCOUNT, claiming, TENANT)).to.deep.equal([]);
  });

  it('is, until the claim is converted, the tenants the claim let in: its own and those it shared the account with', () => {
    const claiming = [identity('tenant-a', 'tenant-a', claimOf('2026-11-01T00:00:00Z', 'tenant-c'))];
    expect(boundTenants(undefined, ACCOUNT, claiming, TENANT)).to.deep.equal(['tenant-a', 'tenant-c']);
    expect(boundTenants(undefined, '333333333333', claiming, TENANT)).to.equal(undefined);
  });

  it('is none when nothing binds the account: no identity claims it by acting first', () => {
    expect(boundTenants(undefined, ACCOUNT, [identity('tenant-a', 'tenant-a')], TENANT)).to.equal(undefined);
  });
});
