import { expect } from 'chai';
import { clusterRow } from '../../src/demo/clusters.js';
import { renderLine, renderTable } from '../../src/demo/table.js';
import { awsCluster, readyStatus, refusedStatus } from './fixtures.js';

const rows = [
  clusterRow(awsCluster('tenant-b', 'analytics-dev', readyStatus)),
  clusterRow(awsCluster('tenant-c', 'reporting-prod', refusedStatus)),
  clusterRow(awsCluster('tenant-b', 'analytics-prod')),
];

describe('demo: table', () => {
  it('has a header and one line per cluster, every column aligned', () => {
    const { lines, hidden } = renderTable(rows);
    expect(hidden).to.deep.equal([]);
    expect(lines).to.have.length(4);
    expect(lines[0]!.split(/\s{3,}/)).to.deep.equal([
      'CLUSTER',
      'NAMESPACE',
      'IDENTITY CHAIN',
      'ACCOUNT',
      'ALLOWED',
      'IN SYNC',
      'DRIFTED',
      'READY',
    ]);
    for (const header of ['NAMESPACE', 'IDENTITY CHAIN', 'ACCOUNT', 'ALLOWED', 'IN SYNC', 'DRIFTED', 'READY']) {
      const column = lines[0]!.indexOf(header);
      for (const line of lines.slice(1)) expect(line[column - 1], `${header} in "${line}"`).to.equal(' ');
      for (const line of lines.slice(1)) expect(line[column], `${header} in "${line}"`).not.to.equal(' ');
    }
  });

  it('shows the chain, the account, tags in sync of discovered, drift, and why a cluster is not Ready', () => {
    const [, ready, refused, pending] = renderTable(rows).lines;
    expect(ready!.split(/\s{3,}/)).to.deep.equal([
      'analytics-dev',
      'tenant-b',
      'Role/tenant-b → Role/keymaster-hub → Controller/default',
      '333333333333',
      'True',
      '3/3',
      '0',
      'True',
    ]);
    expect(refused!.split(/\s{3,}/)).to.deep.equal([
      'reporting-prod',
      'tenant-c',
      'Role/tenant-b',
      '-',
      'False',
      '-',
      '-',
      'False (PrincipalUsageUnauthorized)',
    ]);
    expect(pending!.split(/\s{3,}/).slice(3)).to.deep.equal(['-', '-', '-', '-', '-']);
  });

  it('shows every column at 200 columns', () => {
    const { lines, hidden } = renderTable(rows, 200);
    expect(hidden).to.deep.equal([]);
    expect(lines).to.deep.equal(renderTable(rows).lines);
  });

  it('fits 80 columns by dropping the chain, ALLOWED, the account, then IN SYNC; CLUSTER, NAMESPACE and READY stay', () => {
    const { lines, hidden } = renderTable(rows, 80);
    expect(hidden).to.deep.equal(['IDENTITY CHAIN', 'ALLOWED', 'ACCOUNT', 'IN SYNC']);
    for (const line of lines) expect(line.length, line).to.be.at.most(80);
    expect(lines[0]!.split(/\s{3,}/)).to.deep.equal(['CLUSTER', 'NAMESPACE', 'DRIFTED', 'READY']);
    expect(lines[2]!.split(/\s{3,}/)).to.deep.equal([
      'reporting-prod',
      'tenant-c',
      '-',
      'False (PrincipalUsageUnauthorized)',
    ]);
  });

  it('keeps CLUSTER, NAMESPACE and READY however narrow', () => {
    const { lines, hidden } = renderTable(rows, 20);
    expect(hidden).to.have.length(5);
    expect(lines[0]!.split(/\s{3,}/)).to.deep.equal(['CLUSTER', 'NAMESPACE', 'READY']);
  });

  it('puts a cluster on one line with every column named, for pipes', () => {
    expect(renderLine(rows[1]!)).to.equal(
      'tenant-c/reporting-prod: chain Role/tenant-b, account -, allowed False, in sync -, drifted -, ready False (PrincipalUsageUnauthorized)',
    );
  });
});
