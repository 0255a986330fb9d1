import { propertySchema, type Schema } from '../schema/types.js';
import { deepEqual, isObject, type Json, type JsonObject } from '../util/json.js';

/**
 * Field paths in the notation of managedFields (fieldsV1): `f:spec`, `k:{"key":"a"}` for an item of a
 * map list, `v:"x"` for an item of a set. A path is a list of such elements.
 */
export type FieldPath = string[];

export const pathKey = (path: FieldPath): string => path.join('\n');
export const pathOfKey = (key: string): FieldPath => key.split('\n');

/** The metadata fields that an applier or updater can own (name, uid and the like are nobody's). */
const OWNED_METADATA = ['generateName', 'labels', 'annotations', 'finalizers', 'ownerReferences'];

const sortedJson = (value: JsonObject): string =>
  JSON.stringify(
    Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, value[key]!]),
    ),
  );

export function itemElement(item: Json, schema: Schema): string {
  const keys = schema['x-kubernetes-list-map-keys'];
  if (schema['x-kubernetes-list-type'] === 'map' && keys && isObject(item)) {
    const identity: JsonObject = {};
    for (const key of keys) if (item[key] !== undefined) identity[key] = item[key];
    return `k:${sortedJson(identity)}`;
  }
  return `v:${JSON.stringify(item)}`;
}

/** Whether a list's items are tracked one by one (map and set lists) rather than as one atomic value. */
const granularList = (schema: Schema | undefined): boolean =>
  schema?.['x-kubernetes-list-type'] === 'map' || schema?.['x-kubernetes-list-type'] === 'set';

const granularMap = (schema: Schema | undefined): boolean => schema?.['x-kubernetes-map-type'] !== 'atomic';

function collect(
  value: Json,
  schema: Schema | undefined,
  path: FieldPath,
  into: Set<string>,
  emptyLists: boolean,
): void {
  if (Array.isArray(value) && granularList(schema) && value.length === 0) {
    if (emptyLists) into.add(pathKey(path));
    return;
  }
  if (Array.isArray(value) && granularList(schema)) {
    for (const item of value) {
      const element = itemElement(item, schema!);
      if (element.startsWith('v:') || !isObject(item)) into.add(pathKey([...path, element]));
      else collect(item, schema!.items, [...path, element], into, emptyLists);
    }
    return;
  }
  if (isObject(value) && granularMap(schema) && Object.keys(value).length > 0) {
    for (const [key, item] of Object.entries(value))
      collect(item, propertySchema(schema, key), [...path, `f:${key}`], into, emptyLists);
    return;
  }
  into.add(pathKey(path));
}

/**
 * The leaf fields an object sets, for field ownership. apiVersion, kind and identity metadata are
 * nobody's. An empty map or set list is a field only when an update compares versions
 * (`emptyLists`): structured-merge-diff's comparison makes it a leaf, while the field set of an
 * applied configuration holds nothing for it.
 */
export function fieldsOf(object: JsonObject, schema: Schema, emptyLists = false): Set<string> {
  const fields = new Set<string>();
  for (const [key, value] of Object.entries(object)) {
    if (key === 'apiVersion' || key === 'kind') continue;
    if (key === 'metadata') {
      for (const metaKey of OWNED_METADATA) {
        const metaValue = isObject(value) ? value[metaKey] : undefined;
        if (metaValue !== undefined)
          collect(metaValue, metadataSchema[metaKey], ['f:metadata', `f:${metaKey}`], fields, emptyLists);
      }
      continue;
    }
    collect(value, propertySchema(schema, key), [`f:${key}`], fields, emptyLists);
  }
  return fields;
}

export const metadataSchema: Record<string, Schema> = {
  generateName: { type: 'string' },
  labels: { type: 'object', additionalProperties: { type: 'string' } },
  annotations: { type: 'object', additionalProperties: { type: 'string' } },
  finalizers: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
  ownerReferences: {
    type: 'array',
    items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['uid'],
  },
};

/** The schema of a node of an object, metadata included. */
export function schemaAt(schema: Schema, path: FieldPath): Schema | undefined {
  let current: Schema | undefined = schema;
  for (const [index, element] of path.entries()) {
    if (index === 1 && path[0] === 'f:metadata') current = metadataSchema[element.slice(2)];
    else if (element.startsWith('f:')) current = propertySchema(current, element.slice(2));
    else current = current?.items;
  }
  return current;
}

/** The value at a field path, undefined when absent. */
export function valueAt(object: Json | undefined, path: FieldPath, schema: Schema): Json | undefined {
  let current: Json | undefined = object;
  for (const [index, element] of path.entries()) {
    if (current === undefined) return undefined;
    if (element.startsWith('f:')) {
      current = isObject(current) ? current[element.slice(2)] : undefined;
    } else {
      const listSchema = schemaAt(schema, path.slice(0, index));
      const items: Json[] = Array.isArray(current) ? current : [];
      current = listSchema ? items.find((item) => itemElement(item, listSchema) === element) : undefined;
    }
  }
  return current;
}

export const sameAt = (a: Json | undefined, b: Json | undefined, path: FieldPath, schema: Schema): boolean =>
  deepEqual(valueAt(a, path, schema), valueAt(b, path, schema));

/** A set of field paths as the nested fieldsV1 tree of managedFields. */
export function toFieldsV1(fields: Iterable<string>): JsonObject {
  const tree: JsonObject = {};
  for (const key of fields) {
    let node = tree;
    for (const element of pathOfKey(key)) {
      const next = node[element];
      node = isObject(next) ? next : (node[element] = {});
    }
  }
  return tree;
}

/** The leaf paths of a fieldsV1 tree. */
export function fromFieldsV1(tree: Json | undefined, prefix: FieldPath = [], into = new Set<string>()): Set<string> {
  if (!isObject(tree)) return into;
  for (const [element, child] of Object.entries(tree)) {
    if (element === '.') continue;
    if (isObject(child) && Object.keys(child).some((key) => key !== '.'))
      fromFieldsV1(child, [...prefix, element], into);
    else into.add(pathKey([...prefix, element]));
  }
  return into;
}
