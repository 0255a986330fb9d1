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
  // The drift the last sync saw: what is still drifted, and what it set back.
  const drifted = row.setBack > 0 ? `${(row.drifted ?? 0) + row.setBack} (${row.setBack} set back)` : dash(row.drifted);
  return [row.name, row.namespace, row.chain.join(' → '), dash(row.account), dash(row.allowed), inSync, drifted, ready];
}

/**
 * Dropped in this order, first to last, when the table is wider than the terminal: the chain is the
 * widest and `keymaster explain` shows it; drift and tags in sync go last, being what changes while one
 * watches. CLUSTER, NAMESPACE and READY always stay.
 */
const DROP_ORDER: readonly (typeof COLUMNS)[number][] = ['IDENTITY CHAIN', 'ALLOWED', 'ACCOUNT', 'IN SYNC', 'DRIFTED'];

function align(lines: readonly string[][]): string[] {
  const widths = lines[0]!.map((_, column) => Math.max(...lines.map((line) => line[column]!.length)));
  return lines.map((line) =>
    line.map((cell, column) => (column === line.length - 1 ? cell : cell.padEnd(widths[column]!))).join('   '),
  );
}

/**
 * The clusters as an aligned table, kubectl style: a header line, then one line per cluster; within
 * `width` columns if dropping columns by DROP_ORDER can make it fit. `hidden` names those dropped.
 */
export function renderTable(rows: readonly ClusterRow[], width = Infinity): { lines: string[]; hidden: string[] } {
  const table = [[...COLUMNS], ...rows.map(cells)];
  for (let dropped = 0; ; dropped++) {
    const hidden = DROP_ORDER.slice(0, dropped);
    const kept = COLUMNS.flatMap((name, column) => (hidden.includes(name) ? [] : [column]));
    const lines = align(table.map((line) => kept.map((column) => line[column]!)));
    if (dropped === DROP_ORDER.length || Math.max(...lines.map((line) => line.length)) <= width)
      return { lines, hidden };
  }
}

/** One cluster on one line, for logs and pipes: every column named. */
export function renderLine(row: ClusterRow): string {
  const [name, namespace, chain, account, allowed, inSync, drifted, ready] = cells(row);
  return `${namespace}/${name}: chain ${chain}, account ${account}, allowed ${allowed}, in sync ${inSync}, drifted ${drifted}, ready ${ready}`;
}
