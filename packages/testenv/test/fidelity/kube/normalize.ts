import type { HttpAnswer } from './http.js';

/**
 * What the corpus compares of an answer, after normalization. This file is the one place that says
 * what may legitimately differ between two API servers given the same requests; everything else
 * must be equal:
 *
 * - `metadata.uid`, `metadata.resourceVersion`, `creationTimestamp`, `deletionTimestamp` and
 *   `managedFields[].time` of objects, `ownerReferences[].uid`, and a list's `resourceVersion` are
 *   each server's own (etcd revisions, random uids, clocks): kept as `<uid>`, `<rv>`, `<time>` so that
 *   their presence still counts.
 * - `managedFields[].fieldsV1`: the emulator approximates structured-merge-diff (ownership per leaf,
 *   docs/emulators/kube-emulator.md) and does not reproduce its exact field sets (the `.` entries of
 *   containers, defaulted map-list keys, atomic Go structs). Who manages the object (manager,
 *   operation, apiVersion, subresource) is compared; what ownership does for clients (apply
 *   conflicts, fields removed when a manager stops applying them) is compared by the apply sequences.
 * - `continue` tokens are opaque to clients: `<continue>`.
 * - A name made from `generateName` keeps its prefix; the five random characters become `<random>`.
 * - In `Status` messages and details, the uids and resourceVersions this server gave out earlier in
 *   the sequence (e.g. `Precondition failed: UID in precondition: ...`) become `<uid>` and `<rv>`.
 * - The causes of a 422 Invalid are sorted (and the message's `[...]` list with them): kube-apiserver
 *   validates an object's properties in Go map order, which differs from run to run.
 * - The resources of a discovery document are sorted by name: kube-apiserver lists a group's custom
 *   resources in Go map order too.
 * - A Service's cluster IPs and node ports are allocated at random from each server's range:
 *   `<allocated>`.
 * - Go pointer values in messages (`(*bool)(0xc000123)`, printed by `%#v`) are `(0x<ptr>)`.
 * - The lastTransitionTime of a Namespace's conditions is when each controller wrote them: `<time>`.
 * - The Age cells of Tables (`5s`) depend on the clock: `<age>`.
 * - Of the headers only what clients act on: `Warning` texts (kubectl prints them) and the media type.
 */
export interface Observed {
  status: number;
  contentType?: string;
  warnings?: string[];
  body: unknown;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const isObject = (value: unknown): value is JsonObject =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** What one server handed out so far in a sequence: its uids and resourceVersions. */
export class Issued {
  readonly uids = new Set<string>();
  readonly versions = new Set<string>();

  /**
   * Placeholders for this server's uids inside free text, and for resourceVersions where the
   * message is about versions (a Conflict names the ones given out, an Expired watch the server's).
   */
  scrub(text: string, reason: Json | undefined): string {
    let result = text;
    for (const uid of this.uids) result = result.replaceAll(uid, '<uid>');
    if (reason === 'Expired' || reason === 'Gone') return result.replace(/[0-9]+/g, '<rv>');
    if (reason !== 'Conflict') return result;
    for (const version of this.versions) {
      result = result.replace(new RegExp(`(?<![0-9])${version}(?![0-9])`, 'g'), '<rv>');
    }
    return result;
  }
}

function normalizeMetadata(metadata: JsonObject, issued: Issued): JsonObject {
  const result: JsonObject = { ...metadata };
  if (typeof metadata.uid === 'string') {
    issued.uids.add(metadata.uid);
    result.uid = '<uid>';
  }
  if (typeof metadata.resourceVersion === 'string' && metadata.resourceVersion !== '') {
    issued.versions.add(metadata.resourceVersion);
    result.resourceVersion = '<rv>';
  }
  for (const key of ['creationTimestamp', 'deletionTimestamp'] as const) {
    if (typeof metadata[key] === 'string') result[key] = '<time>';
  }
  if (typeof metadata.continue === 'string' && metadata.continue !== '') result.continue = '<continue>';
  const { generateName, name } = metadata;
  if (typeof generateName === 'string' && typeof name === 'string' && name.startsWith(generateName)) {
    result.name = `${generateName}<random>`;
  }
  if (Array.isArray(metadata.managedFields)) {
    result.managedFields = metadata.managedFields.map((entry) =>
      isObject(entry)
        ? { ...entry, ...(entry.time === undefined ? {} : { time: '<time>' }), fieldsV1: '<fields>' }
        : entry,
    );
  }
  if (Array.isArray(metadata.ownerReferences)) {
    result.ownerReferences = metadata.ownerReferences.map((reference) =>
      isObject(reference) && typeof reference.uid === 'string' ? { ...reference, uid: '<uid>' } : reference,
    );
  }
  return result;
}

const byKey =
  (key: string) =>
  (a: Json, b: Json): number =>
    JSON.stringify((a as JsonObject)[key]).localeCompare(JSON.stringify((b as JsonObject)[key]));

const causeText = ({ field, message }: JsonObject): string => {
  const text = typeof message === 'string' ? message : JSON.stringify(message);
  return typeof field === 'string' ? `${field}: ${text}` : text;
};

/** An Invalid Status with its causes (and the list in its message) in one order. */
function sortCauses(status: JsonObject): void {
  const details = status.details as JsonObject;
  const causes = (details.causes as JsonObject[]).filter(isObject);
  const sorted = [...causes].sort((a, b) => causeText(a).localeCompare(causeText(b)));
  details.causes = sorted;
  const message = typeof status.message === 'string' ? status.message : '';
  const listed = `[${causes.map(causeText).join(', ')}]`;
  if (message.endsWith(listed))
    status.message = `${message.slice(0, -listed.length)}[${sorted.map(causeText).join(', ')}]`;
}

const GO_POINTER = /\(0x[0-9a-f]+\)/g;

function normalizeStatus(status: JsonObject, issued: Issued): void {
  const scrub = (text: string): string => issued.scrub(text, status.reason).replace(GO_POINTER, '(0x<ptr>)');
  if (typeof status.message === 'string') status.message = scrub(status.message);
  const details = status.details;
  if (!isObject(details)) return;
  if (typeof details.uid === 'string') details.uid = '<uid>';
  if (!Array.isArray(details.causes)) return;
  details.causes = details.causes.map((cause) =>
    isObject(cause) && typeof cause.message === 'string' ? { ...cause, message: scrub(cause.message) } : cause,
  );
  if (status.reason === 'Invalid' && details.causes.length > 1) sortCauses(status);
}

/** A Table's Age cells. */
function normalizeTable(table: JsonObject): void {
  const columns = Array.isArray(table.columnDefinitions) ? table.columnDefinitions : [];
  const ages = columns.flatMap((column, index) =>
    isObject(column) && (column.name === 'Age' || column.type === 'date') ? [index] : [],
  );
  for (const row of Array.isArray(table.rows) ? table.rows : []) {
    if (!isObject(row) || !Array.isArray(row.cells)) continue;
    for (const index of ages) if (index < row.cells.length) row.cells[index] = '<age>';
  }
}

/** The times of a Namespace's conditions. */
function normalizeConditionTimes(namespace: JsonObject): void {
  const status = isObject(namespace.status) ? namespace.status : {};
  for (const condition of Array.isArray(status.conditions) ? status.conditions.filter(isObject) : []) {
    if (typeof condition.lastTransitionTime === 'string') condition.lastTransitionTime = '<time>';
  }
}

/** A Service's allocated cluster IPs and node ports. */
function normalizeService(service: JsonObject): void {
  const spec = service.spec;
  if (!isObject(spec)) return;
  if (typeof spec.clusterIP === 'string' && spec.clusterIP !== 'None') spec.clusterIP = '<allocated>';
  if (Array.isArray(spec.clusterIPs))
    spec.clusterIPs = spec.clusterIPs.map((ip) => (ip === 'None' ? ip : '<allocated>'));
  for (const port of Array.isArray(spec.ports) ? spec.ports.filter(isObject) : []) {
    if (typeof port.nodePort === 'number') port.nodePort = '<allocated>';
  }
}

function normalizeDiscovery(document: JsonObject): void {
  if (document.kind === 'APIResourceList' && Array.isArray(document.resources)) {
    document.resources.sort(byKey('name'));
  }
  if (document.kind === 'APIGroupDiscoveryList' && Array.isArray(document.items)) {
    for (const group of document.items.filter(isObject)) {
      for (const version of Array.isArray(group.versions) ? group.versions.filter(isObject) : []) {
        if (Array.isArray(version.resources)) version.resources.sort(byKey('resource'));
      }
    }
  }
}

function normalizeValue(value: Json, issued: Issued): Json {
  if (Array.isArray(value)) return value.map((item) => normalizeValue(item, issued));
  if (!isObject(value)) return value;
  const result: JsonObject = {};
  for (const [key, item] of Object.entries(value)) {
    result[key] = key === 'metadata' && isObject(item) ? normalizeMetadata(item, issued) : normalizeValue(item, issued);
  }
  if (result.kind === 'Status') normalizeStatus(result, issued);
  if (result.kind === 'Table') normalizeTable(result);
  if (result.kind === 'Namespace') normalizeConditionTimes(result);
  if (result.kind === 'Service' || (isObject(result.spec) && Array.isArray(result.spec.clusterIPs)))
    normalizeService(result);
  normalizeDiscovery(result);
  return result;
}

/** The texts of `Warning: 299 - "text"` headers. */
export function warningsOf(header: string | string[] | undefined): string[] | undefined {
  if (header === undefined) return undefined;
  const headers = Array.isArray(header) ? header : [header];
  return headers.flatMap((line) => [...line.matchAll(/\d{3} [^ ]+ "((?:[^"\\]|\\.)*)"/g)].map((match) => match[1]!));
}

function parse(text: string): Json {
  try {
    return JSON.parse(text) as Json;
  } catch {
    return text;
  }
}

/** One answer as the corpus compares it. */
export function observe(answer: HttpAnswer, issued: Issued, pick?: (body: unknown) => unknown): Observed {
  const raw: Json = answer.events ? (answer.events as Json[]) : parse(answer.text);
  // Record before picking: a later step's message may name a uid the picked part left out.
  const normalized = normalizeValue(raw, issued);
  const body = pick && answer.status < 300 ? (pick(normalized) as Json) : normalized;
  const contentType = answer.headers['content-type']?.split(';')[0]?.trim();
  const warnings = warningsOf(answer.headers.warning);
  return {
    status: answer.status,
    ...(contentType ? { contentType } : {}),
    ...(warnings?.length ? { warnings } : {}),
    body,
  };
}
