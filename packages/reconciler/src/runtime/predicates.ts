import { isDeepStrictEqual } from 'node:util';

/** Whether an update is worth a reconcile (adds and deletes always are), as controller-runtime's predicates. */
export type Predicate<T> = (object: T, previous: T) => boolean;

type Meta = {
  metadata?: {
    generation?: number;
    labels?: unknown;
    annotations?: unknown;
    finalizers?: unknown;
    deletionTimestamp?: unknown;
  };
};

/** The spec changed: status writes (ours) leave generation alone. */
export const generationChanged: Predicate<Meta> = (object, previous) =>
  object.metadata?.generation !== previous.metadata?.generation;

export const labelsChanged: Predicate<Meta> = (object, previous) =>
  !isDeepStrictEqual(object.metadata?.labels, previous.metadata?.labels);

export const annotationsChanged: Predicate<Meta> = (object, previous) =>
  !isDeepStrictEqual(object.metadata?.annotations, previous.metadata?.annotations);

export const finalizersChanged: Predicate<Meta> = (object, previous) =>
  !isDeepStrictEqual(object.metadata?.finalizers ?? [], previous.metadata?.finalizers ?? []);

export const deletionChanged: Predicate<Meta> = (object, previous) =>
  object.metadata?.deletionTimestamp !== previous.metadata?.deletionTimestamp;

/** True when any of the predicates is. */
export const anyOf =
  <T>(...predicates: Predicate<T>[]): Predicate<T> =>
  (object, previous) =>
    predicates.some((predicate) => predicate(object, previous));

/** What a reconcile of a Keymaster object acts on: spec, labels, annotations, finalizers, deletion. Not status. */
export const specOrMetadataChanged: Predicate<Meta> = anyOf(
  generationChanged,
  labelsChanged,
  annotationsChanged,
  finalizersChanged,
  deletionChanged,
);
