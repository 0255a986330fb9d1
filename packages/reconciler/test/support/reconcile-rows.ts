import { expect } from 'chai';
import { CONDITION_REASONS, type ConditionType } from '@keymaster/api';
import type { Result } from '../../src/runtime/controller.js';
import type { RecordingEvents } from './recording-events.js';
import type { RecordingWriter } from './recording-writer.js';

/** What a row of a reconcile's table expects of its one reconcile. */
export interface ReconcileRow {
  title: string;
  /** The reasons of the status written, by condition type (none: no status written). */
  reasons?: Record<string, string>;
  /** The Kubernetes writes, as `write Kind/name`, when the row is about them. */
  writes?: string[];
  /** The events, as `Type Reason`, when the row is about them. */
  events?: string[];
  result?: Result;
}

/** Asserts what the row expects of what the reconcile wrote, told and returned. */
export function expectRow(
  row: ReconcileRow,
  { writer, events }: { writer: RecordingWriter; events: RecordingEvents },
  result: Result | undefined,
): void {
  if (row.reasons) expect(writer.reasons).to.deep.equal(row.reasons);
  else expect(writer.status, 'no status written').to.equal(undefined);
  if (row.writes) expect(writer.made).to.deep.equal(row.writes);
  if (row.events) expect(events.reasons).to.deep.equal(row.events);
  expect(result).to.deep.equal(row.result);
}

/** Every reason `@keymaster/api`'s constants give the condition types, once each. */
export const reasonsOf = (types: readonly ConditionType[]): string[] => [
  ...new Set(types.flatMap((type) => Object.values(CONDITION_REASONS[type]))),
];

/**
 * The reasons of `all` that no row of a reconcile's table expects, under any condition type: each row
 * asserts that its reasons are written, so an empty answer proves every one is reached.
 */
export const reasonsWithoutRow = (rows: readonly ReconcileRow[], all: readonly string[]): string[] =>
  all.filter((reason) => !rows.some((row) => Object.values(row.reasons ?? {}).includes(reason)));
