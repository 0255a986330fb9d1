import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { CONDITION_REASONS } from '../src/conditions.js';
import { EventReason } from '../src/events.js';

const DOC = new URL('../../../docs/operations.md', import.meta.url);

/** The reasons the first column of docs/operations.md's Events table names, in backticks. */
function documented(): string[] {
  const doc = readFileSync(DOC, 'utf8');
  const section = doc.slice(doc.indexOf('### Events'), doc.indexOf('### Metrics'));
  const rows = section.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| reason'));
  return rows.flatMap((row) => [...row.split('|')[1]!.matchAll(/`([^`]+)`/g)].map((match) => match[1]!));
}

describe('event reasons', () => {
  it("are each listed in docs/operations.md's Events table", () => {
    expect(documented()).to.include.members(Object.values(EventReason));
  });

  it('are listed there only if Keymaster records them: an EventReason, or a condition reason recorded as it turns False', () => {
    const conditionReasons = Object.values(CONDITION_REASONS).flatMap((reasons) => Object.values(reasons));
    for (const reason of documented())
      expect([...Object.values(EventReason), ...conditionReasons], reason).to.include(reason);
  });
});
