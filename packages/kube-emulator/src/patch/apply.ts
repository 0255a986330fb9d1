import { propertySchema, type Schema } from '../schema/types.js';
import { itemElement, metadataSchema, pathKey, type FieldPath } from '../storage/field-paths.js';
import { clone, isObject, type Json, type JsonObject } from '../util/json.js';

/** Of the applied metadata, the identity and the fields a manager can own. */
const APPLIED_METADATA = ['name', 'namespace', ...Object.keys(metadataSchema)];

/** The schema of a whole object as server-side apply sees it, metadata's ownable fields included. */
const withMetadata = (schema: Schema): Schema => ({
  ...schema,
  properties: { ...schema.properties, metadata: { type: 'object', properties: metadataSchema } },
});

function merge(live: Json | undefined, config: Json, schema: Schema | undefined): Json {
  if (Array.isArray(config)) {
    const listType = schema?.['x-kubernetes-list-type'];
    if (!Array.isArray(live) || (listType !== 'map' && listType !== 'set')) return clone(config);
    const result = [...live];
    for (const item of config) {
      const element = itemElement(item, schema!);
      const index = result.findIndex((existing) => itemElement(existing, schema!) === element);
      if (index < 0) result.push(clone(item));
      else if (listType === 'map') result[index] = merge(result[index], item, schema!.items);
    }
    return result;
  }
  if (isObject(config) && isObject(live) && schema?.['x-kubernetes-map-type'] !== 'atomic') {
    const result: JsonObject = { ...live };
    for (const [key, value] of Object.entries(config))
      result[key] = merge(live[key], value, propertySchema(schema, key));
    return result;
  }
  return clone(config);
}

const onlyKeys = (item: Json, keys: string[]): boolean =>
  isObject(item) && Object.keys(item).every((key) => keys.includes(key));

/** Removes the dropped fields (and map-list items left holding only their keys); undefined removes the node. */
function removeDropped(
  value: Json,
  schema: Schema | undefined,
  path: FieldPath,
  dropped: Set<string>,
): Json | undefined {
  const key = pathKey(path);
  if (path.length > 0 && dropped.has(key)) return undefined;
  if (Array.isArray(value) && schema?.['x-kubernetes-list-type'] && schema['x-kubernetes-list-type'] !== 'atomic') {
    const keys = schema['x-kubernetes-list-map-keys'] ?? [];
    return value.flatMap((item) => {
      const itemPath = [...path, itemElement(item, schema)];
      // An item whose key the manager gave up is gone whole (defaulted fields in it belong to no one).
      if (keys.some((itemKey) => dropped.has(pathKey([...itemPath, `f:${itemKey}`])))) return [];
      const prefix = `${pathKey(itemPath)}\n`;
      const kept = removeDropped(item, schema.items, itemPath, dropped);
      if (kept === undefined) return [];
      const touched = [...dropped].some((droppedKey) => droppedKey.startsWith(prefix));
      return touched && onlyKeys(kept, keys) ? [] : [kept];
    });
  }
  if (isObject(value) && schema?.['x-kubernetes-map-type'] !== 'atomic') {
    const result: JsonObject = {};
    for (const [field, item] of Object.entries(value)) {
      const kept = removeDropped(item, propertySchema(schema, field), [...path, `f:${field}`], dropped);
      if (kept !== undefined) result[field] = kept;
    }
    return result;
  }
  return value;
}

/**
 * The object after a server-side apply: the configuration merged into the live object (map lists by
 * key, sets by value, the rest replaced), minus the fields the manager stopped applying.
 */
export function mergeApplied(
  live: JsonObject | undefined,
  config: JsonObject,
  schema: Schema,
  dropped: Set<string>,
): JsonObject {
  const full = withMetadata(schema);
  const configMetadata = isObject(config.metadata) ? config.metadata : {};
  const applied: JsonObject = {
    ...config,
    metadata: Object.fromEntries(Object.entries(configMetadata).filter(([key]) => APPLIED_METADATA.includes(key))),
  };
  const merged = merge(live ?? {}, applied, full) as JsonObject;
  return removeDropped(merged, full, [], dropped) as JsonObject;
}
