import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { CONDITION_REASONS, type ConditionType } from '../src/conditions.js';

const ROOT = new URL('../../../', import.meta.url);
const DOCS = ['docs/reconciler.md', 'docs/credentials.md'];
const MARKER = '<!-- condition-reasons';

const backticked = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);
const cells = (row: string) => row.split('|').slice(1, -1);

/**
 * `<type> <reason>` for every reason the docs' condition tables state: the tables after a
 * condition-reasons marker, whose first column is the type (empty: the row above's) and whose
 * column headed "reason(s)" lists reasons in backticks.
 */
function documented(): string[] {
  return DOCS.flatMap((path) => {
    const doc = readFileSync(new URL(path, ROOT), 'utf8');
    const tables = doc.split(MARKER).slice(1);
    expect(tables, `${path} has a condition-reasons table`).to.not.be.empty;
    return tables.flatMap((after) => {
      const [header = '', , ...rows] = /\n((?:\|.*\n)+)/.exec(after)![1]!.trim().split('\n');
      const column = cells(header).findIndex((cell) => /reasons?\b/.test(cell));
      let type = '';
      return rows.flatMap((row) => {
        type = backticked(cells(row)[0]!)[0] ?? type;
        return backticked(cells(row)[column]!).map((reason) => `${type} ${reason}`);
      });
    });
  });
}

describe('condition reasons', () => {
  const constants = Object.entries(CONDITION_REASONS).flatMap(([type, reasons]) =>
    Object.values(reasons).map((reason) => `${type} ${reason}`),
  );

  it('documents only reasons that are constants of their condition type', () => {
    expect(documented().filter((entry) => !constants.includes(entry))).to.deep.equal([]);
  });

  it('documents every reason constant under some condition', () => {
    const reasons = new Set(documented().map((entry) => entry.split(' ')[1]));
    const missing = constants.map((entry) => entry.split(' ')[1]!).filter((reason) => !reasons.has(reason));
    expect([...new Set(missing)]).to.deep.equal([]);
  });

  it('keys each reason by its own value, so that a constant reads as the reason it sets', () => {
    for (const type of Object.keys(CONDITION_REASONS) as ConditionType[])
      for (const [key, reason] of Object.entries(CONDITION_REASONS[type])) expect(reason, type).to.equal(key);
  });
});
