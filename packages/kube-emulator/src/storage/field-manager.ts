import { ApiError } from '../api/status.js';
import { now } from '../resources/prepare.js';
import { apiVersionOf, type ResourceDef } from '../resources/types.js';
import { arrayAt, isObject, objectAt, type JsonObject, text } from '../util/json.js';
import { fieldsOf, fromFieldsV1, pathOfKey, sameAt, toFieldsV1 } from './field-paths.js';

export type Operation = 'Apply' | 'Update';

/** One managedFields entry, with its fields as a set of path keys. */
export interface ManagerEntry {
  manager: string;
  operation: Operation;
  apiVersion: string;
  time: string;
  subresource?: string;
  fields: Set<string>;
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

export function writeEntries(object: JsonObject, entries: ManagerEntry[]): void {
  const metadata = objectAt(object, 'metadata')!;
  const kept = entries.filter((entry) => entry.fields.size > 0);
  if (kept.length === 0) {
    delete metadata.managedFields;
    return;
  }
  metadata.managedFields = kept.map((entry) => ({
    manager: entry.manager,
    operation: entry.operation,
    apiVersion: entry.apiVersion,
    time: entry.time,
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
  manager: string;
  path: string;
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
  /** After an update (or create): the manager takes the fields whose values changed. */
  recordUpdate(
    resource: ResourceDef,
    old: JsonObject | undefined,
    next: JsonObject,
    manager: string,
    subresource: string | undefined,
  ): void {
    const entries = readEntries(old);
    const nextFields = fieldsOf(next, resource.schema);
    const oldFields = old ? fieldsOf(old, resource.schema) : new Set<string>();
    const changed = [...nextFields].filter(
      (key) => !oldFields.has(key) || !sameAt(old, next, pathOfKey(key), resource.schema),
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
   * Ownership for a server-side apply of `config` over `live`: returns the fields the manager no longer
   * applies and nobody else owns (to be removed), or throws 409 listing conflicts unless forced.
   */
  recordApply(
    resource: ResourceDef,
    live: JsonObject | undefined,
    config: JsonObject,
    manager: string,
    force: boolean,
    entries: ManagerEntry[],
  ): Set<string> {
    const applied = fieldsOf(config, resource.schema);
    const conflicts: Conflict[] = [];
    for (const entry of entries) {
      if (sameManager(entry, { manager, operation: 'Apply' })) continue;
      for (const key of applied) {
        if (entry.fields.has(key) && live && !sameAt(live, config, pathOfKey(key), resource.schema)) {
          if (force) entry.fields.delete(key);
          else conflicts.push({ manager: entry.manager, path: key });
        }
      }
    }
    if (conflicts.length > 0) throw applyConflict(resource, text(objectAt(config, 'metadata')?.name ?? ''), conflicts);
    const mine = entryFor(entries, resource, manager, 'Apply', undefined);
    const dropped = new Set(
      [...mine.fields].filter(
        (key) => !applied.has(key) && !entries.some((entry) => entry !== mine && entry.fields.has(key)),
      ),
    );
    mine.fields = applied;
    return dropped;
  }
}

function applyConflict(resource: ResourceDef, name: string, conflicts: Conflict[]): ApiError {
  const apiVersion = apiVersionOf(resource);
  const causes = conflicts.map(({ manager, path }) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with "${manager}" using ${apiVersion}`,
    field: printPath(path),
  }));
  const summary = conflicts.length === 1 ? '1 conflict' : `${conflicts.length} conflicts`;
  const listed = causes.map((cause) => `${cause.message}: ${cause.field}`).join('\n');
  return new ApiError(409, 'Conflict', `Apply failed with ${summary}: ${listed}`, {
    name,
    ...(resource.group ? { group: resource.group } : {}),
    kind: resource.plural,
    causes,
  });
}
