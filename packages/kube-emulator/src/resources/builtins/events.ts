import { free, integer, kindSchema, object, string, timestamp } from '../../schema/builders.js';
import { microTime } from '../../schema/micro-time.js';
import { age } from '../../table/age.js';
import { column, nameColumn } from '../../table/columns.js';
import { objectAt, stringAt, type JsonObject, text, drop } from '../../util/json.js';
import type { Schema } from '../../schema/types.js';
import type { Column, ResourceDef, Strategy } from '../types.js';
import { defineBuiltin } from './define.js';

const objectReference = object('The object this event is about.', {
  kind: string('Kind of the referent.'),
  namespace: string('Namespace of the referent.'),
  name: string('Name of the referent.'),
  uid: string('UID of the referent.'),
  apiVersion: string('API version of the referent.'),
  resourceVersion: string('Specific resourceVersion to which this reference is made, if any.'),
  fieldPath: string('A part of an object, e.g. spec.containers{name}.'),
});
const series = object('Data about the event series this event represents.', {
  count: integer('Number of occurrences in this series up to the last heartbeat time.'),
  lastObservedTime: microTime('Time of the last occurrence observed.'),
});

/** core/v1 Event is the stored shape; events.k8s.io/v1 renames fields (regarding, note, deprecated*). */
const RENAMES: [core: string, events: string][] = [
  ['involvedObject', 'regarding'],
  ['message', 'note'],
  ['reportingComponent', 'reportingController'],
  ['source', 'deprecatedSource'],
  ['firstTimestamp', 'deprecatedFirstTimestamp'],
  ['lastTimestamp', 'deprecatedLastTimestamp'],
  ['count', 'deprecatedCount'],
];

function rename(object: JsonObject, pairs: [from: string, to: string][], apiVersion: string): JsonObject {
  const renamed: JsonObject = { ...object, apiVersion };
  for (const [from, to] of pairs) {
    drop(renamed, from);
    if (object[from] !== undefined) renamed[to] = object[from];
  }
  return renamed;
}

/**
 * The fields a stored core/v1 Event always has, as Go writes its zero values: `source` and
 * `involvedObject` structs, null times, empty reporting strings.
 */
function withZeroValues(event: JsonObject): JsonObject {
  event.source ??= {};
  event.involvedObject ??= {};
  for (const time of ['firstTimestamp', 'lastTimestamp', 'eventTime']) event[time] ??= null;
  for (const name of ['reportingComponent', 'reportingInstance']) event[name] ??= '';
  return event;
}

/** events.k8s.io/v1 omits empty reporting strings (`omitempty`), unlike core/v1. */
function withoutEmptyReporting(event: JsonObject): JsonObject {
  for (const name of ['reportingController', 'reportingInstance']) if (event[name] === '') drop(event, name);
  return event;
}

function sourceOf(event: JsonObject): string {
  const source = objectAt(event, 'source');
  const component = stringAt(source, 'component') ?? stringAt(event, 'reportingComponent') ?? '';
  const host = stringAt(source, 'host') ?? stringAt(event, 'reportingInstance') ?? '';
  return host ? `${component}, ${host}` : component;
}

function firstSeen(event: JsonObject): string {
  return age(event.firstTimestamp ?? event.eventTime);
}

/** The columns of `kubectl get events`, computed on the stored (core/v1) shape. */
const eventColumns: Column[] = [
  column('Last Seen', 'string', 'The time at which the most recent occurrence of this event was recorded.', (e) =>
    e.lastTimestamp ? age(e.lastTimestamp) : firstSeen(e),
  ),
  column(
    'Type',
    'string',
    'Type of this event (Normal, Warning), new types could be added in the future',
    (e) => e.type ?? '',
  ),
  column(
    'Reason',
    'string',
    "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
    (e) => e.reason ?? '',
  ),
  column('Object', 'string', 'The object that this event is about.', (e) => {
    const involved = objectAt(e, 'involvedObject');
    const kind = (stringAt(involved, 'kind') ?? '').toLowerCase();
    const name = stringAt(involved, 'name');
    return name ? `${kind}/${name}` : kind;
  }),
  column(
    'Subobject',
    'string',
    'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2]. For example, if the object reference is to a container within a pod, this would take on a value like: "spec.containers{name}" (where "name" refers to the name of the container that triggered the event) or if no container name is specified "spec.containers[2]" (container with index 2 in this pod). This syntax is chosen only to have some well-defined way of referencing a part of an object.',
    (e) => objectAt(e, 'involvedObject')?.fieldPath ?? '',
    1,
  ),
  column(
    'Source',
    'string',
    'The component reporting this event. Should be a short machine understandable string.',
    sourceOf,
    1,
  ),
  column('Message', 'string', 'A human-readable description of the status of this operation.', (e) =>
    text(e.message ?? '').trim(),
  ),
  column(
    'First Seen',
    'string',
    'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)',
    firstSeen,
    1,
  ),
  column(
    'Count',
    'string',
    'The number of times this event has occurred.',
    (e) => e.count ?? objectAt(e, 'series')?.count ?? 1,
    1,
  ),
  nameColumn(1),
];

const commonEventFields = {
  reason: string('A short, machine understandable string that gives the reason for the transition.'),
  type: string('Type of this event (Normal, Warning).'),
  action: string('What action was taken/failed regarding the regarding object.'),
  eventTime: microTime('Time when this Event was first observed.'),
  series,
  related: objectReference,
  reportingInstance: string('ID of the controller instance.'),
};

/** The two Event APIs: the same stored objects, described by each version's fields. */
const eventResource = (group: string, fields: Record<string, Schema>, strategy?: Strategy): ResourceDef =>
  defineBuiltin({
    group,
    version: 'v1',
    plural: 'events',
    kind: 'Event',
    namespaced: true,
    shortNames: ['ev'],
    storageKey: 'events',
    storedAs: { group: '', version: 'v1' },
    schema: kindSchema('Event is a report of an event somewhere in the cluster.', { ...commonEventFields, ...fields }),
    columns: eventColumns,
    ...(strategy ? { strategy } : {}),
  });

export const coreEvents = eventResource(
  '',
  {
    involvedObject: objectReference,
    message: string('A human-readable description of the status of this operation.'),
    source: free('The component reporting this event.'),
    firstTimestamp: timestamp('The time at which the event was first recorded.'),
    lastTimestamp: timestamp('The time at which the most recent occurrence of this event was recorded.'),
    count: integer('The number of times this event has occurred.'),
    reportingComponent: string('Name of the controller that emitted this Event.'),
  },
  { derive: (event) => void withZeroValues(event) },
);

export const eventsV1 = eventResource(
  'events.k8s.io',
  {
    regarding: objectReference,
    note: string('A human-readable description of the status of this operation.'),
    reportingController: string('Name of the controller that emitted this Event.'),
    deprecatedSource: free('Deprecated field assuring backward compatibility with core.v1 Event type.'),
    deprecatedFirstTimestamp: timestamp('Deprecated field assuring backward compatibility with core.v1 Event type.'),
    deprecatedLastTimestamp: timestamp('Deprecated field assuring backward compatibility with core.v1 Event type.'),
    deprecatedCount: integer('Deprecated field assuring backward compatibility with core.v1 Event type.'),
  },
  {
    toStorage: (event) =>
      withZeroValues(
        rename(
          event,
          RENAMES.map(([core, events]) => [events, core]),
          'v1',
        ),
      ),
    fromStorage: (event) => withoutEmptyReporting(rename(event, RENAMES, 'events.k8s.io/v1')),
  },
);
