import { expect } from 'chai';
import type { AWSCredentialsRequest, AWSCredentialsRequestSpec } from '@keymaster/api';
import { CredentialSetCap } from '../../src/credentials/set-cap.js';

/** A request of `namespace` created at second `created`, asking for a session narrowed to `action`. */
function request(
  namespace: string,
  name: string,
  created: number,
  action: string,
  spec: Partial<AWSCredentialsRequestSpec> = {},
): AWSCredentialsRequest {
  return {
    apiVersion: 'infrastructure.keymaster.dev/v1beta1',
    kind: 'AWSCredentialsRequest',
    metadata: { namespace, name, creationTimestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, created)).toISOString() },
    spec: {
      identityRef: { kind: 'AWSClusterRoleIdentity', name: 'workloads' },
      statements: [{ effect: 'Allow', actions: [action], resources: ['*'] }],
      secretRef: { name: `${name}-aws` },
      ...spec,
    },
  };
}

/** A cap of 2 sets per namespace, recording what each change moved across it. */
function capOf2() {
  const moved: string[][] = [];
  const cap = new CredentialSetCap(2, (namespace, names) => {
    if (names.length > 0) moved.push(names.map((name) => `${namespace}/${name}`));
  });
  const admitted = (namespace: string, ...names: string[]) =>
    names.filter((name) => cap.verdict(namespace, name).admitted);
  return { cap, moved, admitted };
}

describe('CredentialSetCap: distinct credential sets per namespace, the oldest requests first', () => {
  it('serves every set under the cap, and counts requests that ask alike as one set', () => {
    const { cap, admitted } = capOf2();
    cap.track(request('ns', 'a', 1, 's3:GetObject'));
    cap.track(request('ns', 'b', 2, 's3:GetObject'));
    cap.track(request('ns', 'c', 3, 'sqs:SendMessage'));
    expect(admitted('ns', 'a', 'b', 'c')).to.deep.equal(['a', 'b', 'c']);
    expect(cap.refused('ns')).to.equal(0);
  });

  it('refuses the requests whose set is beyond the cap, by age and then name, whatever the order they came in', () => {
    const requests = [
      request('ns', 'young', 5, 'ec2:DescribeA'),
      request('ns', 'old', 1, 'ec2:DescribeB'),
      request('ns', 'twin-b', 3, 'ec2:DescribeC'),
      request('ns', 'twin-a', 3, 'ec2:DescribeD'),
      request('ns', 'shares-old', 9, 'ec2:DescribeB'),
    ];
    for (const order of [requests, requests.toReversed()]) {
      const { cap, admitted } = capOf2();
      for (const each of order) cap.track(each);
      expect(admitted('ns', 'young', 'old', 'twin-a', 'twin-b', 'shares-old')).to.deep.equal([
        'old',
        'twin-a',
        'shares-old',
      ]);
      expect(cap.verdict('ns', 'young')).to.deep.equal({ admitted: false });
      expect(cap.refused('ns')).to.equal(2);
    }
  });

  it('admits the next oldest when a served request goes, and tells which requests moved', () => {
    const { cap, moved, admitted } = capOf2();
    const old = request('ns', 'old', 1, 'ec2:DescribeA');
    cap.track(old);
    cap.track(request('ns', 'middle', 2, 'ec2:DescribeB'));
    cap.track(request('ns', 'young', 3, 'ec2:DescribeC'));
    expect(admitted('ns', 'old', 'middle', 'young')).to.deep.equal(['old', 'middle']);
    expect(moved, 'a new request is reconciled for its own add').to.deep.equal([]);
    cap.track({ ...old, metadata: { ...old.metadata, deletionTimestamp: '2026-01-01T01:00:00Z' } });
    expect(admitted('ns', 'middle', 'young')).to.deep.equal(['middle', 'young']);
    expect(moved).to.deep.equal([['ns/young']]);
    cap.untrack(old);
    expect(moved).to.have.length(1);
  });

  it('moves the youngest out when an old request is edited to ask for a new set (age decides)', () => {
    const { cap, moved, admitted } = capOf2();
    cap.track(request('ns', 'old', 1, 'ec2:DescribeA'));
    cap.track(request('ns', 'shares', 2, 'ec2:DescribeA'));
    cap.track(request('ns', 'young', 3, 'ec2:DescribeB'));
    cap.track(request('ns', 'old', 1, 'ec2:DescribeC'));
    expect(admitted('ns', 'old', 'shares', 'young')).to.deep.equal(['old', 'shares']);
    expect(moved).to.deep.equal([['ns/young']]);
  });

  it('tells a WebIdentity request apart by its identity, and another duration or policy ARN by its session', () => {
    const { cap, admitted } = capOf2();
    cap.track(request('ns', 'a', 1, 's3:GetObject'));
    cap.track(request('ns', 'b', 2, 's3:GetObject', { durationSeconds: 900 }));
    cap.track(
      request('ns', 'web', 3, 'unused', {
        mode: 'WebIdentity',
        identityRef: { kind: 'AWSClusterWebIdentity', name: 'pods' },
      }),
    );
    expect(admitted('ns', 'a', 'b', 'web')).to.deep.equal(['a', 'b']);
  });

  it("keeps each namespace's count apart: one namespace over the cap refuses nothing elsewhere", () => {
    const { cap, admitted } = capOf2();
    // Newest last, as a flood comes; and an older one late (the informer's order is not the age order).
    for (let i = 1; i < 1_100; i += 1) cap.track(request('hostile', `flood-${i}`, i, `ec2:Describe${i}`));
    cap.track(request('hostile', 'flood-0', 0, 'ec2:Describe0'));
    cap.track(request('tenant-b', 'reports', 2_000, 'tag:GetResources'));
    expect(admitted('tenant-b', 'reports')).to.deep.equal(['reports']);
    expect(admitted('hostile', 'flood-0', 'flood-1', 'flood-2')).to.deep.equal(['flood-0', 'flood-1']);
    expect(cap.refused('hostile')).to.equal(1_098);
    expect(cap.refused('tenant-b')).to.equal(0);
  });
});
