import { expect } from 'chai';
import { renderRequests, requestSettled, type RequestRow } from '../../src/demo/credentials.js';

const row = (fields: Partial<RequestRow> = {}): RequestRow => ({
  namespace: 'tenant-b',
  name: 'reports',
  secret: 'reports-aws',
  format: 'Environment',
  mode: 'Session',
  allows: ['tag:GetResources'],
  principal: 'arn:aws:sts::333333333333:assumed-role/tenant-b-admin/s',
  expiration: '2026-11-23T13:00:00.000Z',
  nextRenewal: '2026-11-23T12:30:00.000Z',
  secretKeys: ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN'],
  ready: { status: 'True', reason: 'Ready', message: 'The Secret holds the requested credentials' },
  current: true,
  ...fields,
});

describe('demo: credentials requests', () => {
  it('shows a served request by its Secret, keys, principal, what it may do and its times', () => {
    expect(renderRequests([row()])).to.deep.equal([
      'Credentials: 1 of 1 AWSCredentialsRequest served',
      '  tenant-b/reports -> Secret reports-aws (Environment: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN): a session of arn:aws:sts::333333333333:assumed-role/tenant-b-admin/s that may only tag:GetResources, until 2026-11-23T13:00:00.000Z (renewed at 2026-11-23T12:30:00.000Z)',
    ]);
    expect(renderRequests([])).to.deep.equal([]);
  });

  it('shows why a request is not served, and counts it as settled only once it is Ready or refused', () => {
    const refused = row({ ready: { status: 'False', reason: 'PassthroughRefused', message: 'no' } });
    const lines = renderRequests([refused, row({ name: 'b' })]);
    expect(lines.slice(0, 2)).to.deep.equal([
      'Credentials: 1 of 2 AWSCredentialsRequests served',
      '  tenant-b/reports -> Secret reports-aws: PassthroughRefused: no',
    ]);
    expect(lines[2]).to.match(/^ {2}tenant-b\/b -> Secret reports-aws \(Environment: /);
    expect(requestSettled(refused)).to.equal(true);
    expect(requestSettled(row({ ready: { status: 'Unknown', reason: 'Reconciling', message: '' } }))).to.equal(false);
    expect(requestSettled(row({ current: false }))).to.equal(false);
  });
});
