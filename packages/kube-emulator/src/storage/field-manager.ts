import { ApiError } from '../api/status.js';
import { now } from '../resources/prepare.js';
import { apiVersionOf, type ResourceDef } from '../resources/types.js';
import { arrayAt, isObject, objectAt, type JsonObject, text } from '../util/json.js';
import { fieldsOf, fromFieldsV1, pathOfKey, sameAt, toFieldsV1, valueAt } from './field-paths.js';

export type Operation = 'Apply' | 'Update';

/** One managedFields entry, with its fields as a set of path keys. */
export interface ManagerEntry {
  manager: string;
  operation: Operation;
  apiVersion: string;
  /** Empty when the manager has none: an apply that changed nothing leaves a new manager without one. */
  time: string;
  subresource?: string;
  fields: Set<string>;
}

/** What an apply did to ownership. */
export interface ApplyOwnership {
  /** The fields the manager no longer applies and nobody else owns (to be removed). */
  dropped: Set<string>;
  /** For an apply that changes no value: its manager's time stays as it was (none for a new manager). */
  changedNothing(): void;
}

const sameManager = (
  a: ManagerEntry,
  b: { manager: string; operation: Operation; subresource?: string | undefined },
): boolean => a.manager === b.manager && a.operation === b.operation && (a.subresource ?? '') === (b.subresource ?? '');

export function readEntries(object: JsonObject | undefined): ManagerEntry[] {
  return (arrayAt(objectAt(object, 'metadata'), 'managedFields') ?? []).filter(isObject).map((entry) => ({
    manager: text(entry.manager ?? ''),
    operation: entry.operation === 'Apply' ? 'Apply' : 'Update',
    apiVersion: text(entry.apiVersion ?? ''),
    time: text(entry.time ?? ''),
    ...(typeof entry.subresource === 'string' ? { subresource: entry.subresource } : {}),
    fields: fromFieldsV1(entry.fieldsV1),
  }));
}

/** kube-apiserver's order of managedFields: Apply before Update, then by time (seconds), manager, apiVersion, subresource. */
function compareEntries(a: ManagerEntry, b: ManagerEntry): number {
  const seconds = (entry: ManagerEntry): number => Math.floor(Date.parse(entry.time) / 1000) || 0;
  return (
    a.operation.localeCompare(b.operation) ||
    seconds(a) - seconds(b) ||
    compareText(a.manager, b.manager) ||
    compareText(a.apiVersion, b.apiVersion) ||
    compareText(a.subresource ?? '', b.subresource ?? '')
  );
}

/** Go's string order (bytes), not the locale's. */
const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export function writeEntries(object: JsonObject, entries: ManagerEntry[]): void {
  const metadata = objectAt(object, 'metadata')!;
  const kept = entries.filter((entry) => entry.fields.size > 0).sort(compareEntries);
  if (kept.length === 0) {
    delete metadata.managedFields;
    return;
  }
  metadata.managedFields = kept.map((entry) => ({
    manager: entry.manager,
    operation: entry.operation,
    apiVersion: entry.apiVersion,
    ...(entry.time ? { time: entry.time } : {}),
    fieldsType: 'FieldsV1',
    fieldsV1: toFieldsV1(entry.fields),
    ...(entry.subresource ? { subresource: entry.subresource } : {}),
  }));
}

/** The entry of one manager, created when it has none yet. */
function entryFor(
  entries: ManagerEntry[],
  resource: ResourceDef,
  manager: string,
  operation: Operation,
  subresource: string | undefined,
): ManagerEntry {
  let entry = entries.find((candidate) => sameManager(candidate, { manager, operation, subresource }));
  if (!entry) {
    entry = {
      manager,
      operation,
      apiVersion: apiVersionOf(resource),
      time: now(),
      fields: new Set(),
      ...(subresource ? { subresource } : {}),
    };
    entries.push(entry);
  }
  entry.time = now();
  entry.apiVersion = apiVersionOf(resource);
  return entry;
}

export interface Conflict {
  entry: ManagerEntry;
  path: string;
}

/** A manager as conflict messages name it: `"alice"`, `"bob" with subresource "status"`, `"kubectl" using v1`. */
function printManager(entry: ManagerEntry): string {
  const named = entry.subresource
    ? `${JSON.stringify(entry.manager)} with subresource ${JSON.stringify(entry.subresource)}`
    : JSON.stringify(entry.manager);
  return entry.operation === 'Update' ? `${named} using ${entry.apiVersion}` : named;
}

/** `.spec.region`, `.spec.tags[key="a"].value`: a field path as conflict messages print it. */
export function printPath(key: string): string {
  return pathOfKey(key)
    .map((element) => {
      if (element.startsWith('f:')) return `.${element.slice(2)}`;
      if (element.startsWith('k:')) {
        const identity = JSON.parse(element.slice(2)) as JsonObject;
        return `[${Object.entries(identity)
          .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
          .join(',')}]`;
      }
      return `[=${element.slice(2)}]`;
    })
    .join('');
}

/**
 * Field ownership (managedFields), approximating the apiserver's structured-merge-diff: an update
 * owns the fields it changed, an apply owns every field of its configuration, and fields a manager
 * stops applying are removed unless someone else owns them.
 */
export class FieldManager {
  /**
   * After an update (or create): the manager takes the fields whose values changed. An update of an
   * object that has no managedFields does not start them (kube-apiserver tracks from creation only).
   */
  recordUpdate(
    resource: ResourceDef,
    old: JsonObject | undefined,
    next: JsonObject,
    manager: string,
    subresource: string | undefined,
  ): void {
    const entries = readEntries(old);
    if (old && entries.length === 0) {
      writeEntries(next, entries);
      return;
    }
    const nextFields = fieldsOf(next, resource.schema, true);
    const oldFields = old ? fieldsOf(old, resource.schema, true) : new Set<string>();
    // A map whose fields all went is no new field: structured-merge-diff compares the map as it was.
    const emptied = (key: string): boolean => {
      const [before, after] = [old, next].map((object) => valueAt(object, pathOfKey(key), resource.schema));
      return isObject(after) && Object.keys(after).length === 0 && isObject(before) && Object.keys(before).length > 0;
    };
    const changed = [...nextFields].filter(
      (key) => (!oldFields.has(key) || !sameAt(old, next, pathOfKey(key), resource.schema)) && !emptied(key),
    );
    const gone = [...oldFields].filter((key) => !nextFields.has(key));
    if (changed.length === 0 && gone.length === 0) {
      writeEntries(next, entries);
      return;
    }
    for (const entry of entries) for (const key of [...changed, ...gone]) entry.fields.delete(key);
    const mine = entryFor(entries, resource, manager, 'Update', subresource);
    for (const key of changed) mine.fields.add(key);
    writeEntries(next, entries);
  }

  /**
   * Ownership for a server-side apply of `config` over `live`: the fields the manager no longer
   * applies and nobody else owns (to be removed), or 409 listing conflicts unless forced.
   */
  recordApply(
    resource: ResourceDef,
    live: JsonObject | undefined,
    config: JsonObject,
    manager: string,
    force: boolean,
    entries: ManagerEntry[],
    subresource?: string,
  ): ApplyOwnership {
    const applied = fieldsOf(config, resource.schema);
    const conflicts: Conflict[] = [];
    for (const entry of entries) {
      if (sameManager(entry, { manager, operation: 'Apply', subresource })) continue;
      for (const key of applied) {
        if (entry.fields.has(key) && live && !sameAt(live, config, pathOfKey(key), resource.schema)) {
          if (force) entry.fields.delete(key);
          else conflicts.push({ entry, path: key });
        }
      }
    }
    if (conflicts.length > 0) throw applyConflict(conflicts);
    const previousTime =
      entries.find((entry) => sameManager(entry, { manager, operation: 'Apply', subresource }))?.time ?? '';
    const mine = entryFor(entries, resource, manager, 'Apply', subresource);
    const dropped = new Set(
      [...mine.fields].filter(
        (key) => !applied.has(key) && !entries.some((entry) => entry !== mine && entry.fields.has(key)),
      ),
    );
    mine.fields = applied;
    return {
      dropped,
      changedNothing: () => {
        // kube-apiserver stamps the applier's time only when the apply changed the object.
        mine.time = previousTime;
      },
    };
  }
}

/**
 * 409 Conflict as kube-apiserver words it: `Apply failed with 1 conflict: conflict with "alice": .data.a`,
 * or per manager (sorted) `conflicts with "alice":` and one `- path` line each; details hold only causes.
 */
function applyConflict(conflicts: Conflict[]): ApiError {
  const causes = conflicts.map(({ entry, path }) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with ${printManager(entry)}`,
    field: printPath(path),
  }));
  if (conflicts.length === 1) {
    return new ApiError(409, 'Conflict', `Apply failed with 1 conflict: ${causes[0]!.message}: ${causes[0]!.field}`, {
      causes,
    });
  }
  const byManager = new Map<string, string[]>();
  for (const { entry, path } of conflicts) {
    const printed = printManager(entry);
    byManager.set(printed, [...(byManager.get(printed) ?? []), printPath(path)]);
  }
  const lines = [...byManager.keys()]
    .sort(compareText)
    .flatMap((printed) => [`conflicts with ${printed}:`, ...byManager.get(printed)!.map((path) => `- ${path}`)]);
  return new ApiError(409, 'Conflict', `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`, {
    causes,
  });
}
