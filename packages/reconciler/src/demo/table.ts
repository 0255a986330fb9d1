import type { ClusterRow } from './clusters.js';

const COLUMNS = [
  'CLUSTER',
  'NAMESPACE',
  'IDENTITY CHAIN',
  'ACCOUNT',
  'ALLOWED',
  'IN SYNC',
  'DRIFTED',
  'READY',
] as const;

const dash = (value: string | number | undefined) => (value === undefined ? '-' : String(value));

function cells(row: ClusterRow): string[] {
  const ready = row.ready ? (row.ready.status === 'True' ? 'True' : `${row.ready.status} (${row.ready.reason})`) : '-';
  const inSync = row.discovered === undefined ? '-' : `${dash(row.inSync)}/${row.discovered}`;
  return [
    row.name,
    row.namespace,
    row.chain.join(' → '),
    dash(row.account),
    dash(row.allowed),
    inSync,
    dash(row.drifted),
    ready,
  ];
}

/** The clusters as an aligned table, kubectl style: a header line, then one line per cluster. */
export function renderTable(rows: readonly ClusterRow[]): string[] {
  const lines = [[...COLUMNS], ...rows.map(cells)];
  const widths = COLUMNS.map((_, column) => Math.max(...lines.map((line) => line[column]!.length)));
  return lines.map((line) =>
    line.map((cell, column) => (column === line.length - 1 ? cell : cell.padEnd(widths[column]!))).join('   '),
  );
}

/** One cluster on one line, for logs and pipes: every column named. */
export function renderLine(row: ClusterRow): string {
  const [name, namespace, chain, account, allowed, inSync, drifted, ready] = cells(row);
  return `${namespace}/${name}: chain ${chain}, account ${account}, allowed ${allowed}, in sync ${inSync}, drifted ${drifted}, ready ${ready}`;
}
