import { isObject, drop, type JsonObject } from '../util/json.js';
import { propertySchema, type Schema } from './types.js';

/** A map (additionalProperties, no declared fields): a Go map, omitted when empty; a struct is not. */
const isMap = (schema: Schema | undefined): boolean =>
  schema !== undefined && typeof schema.additionalProperties === 'object' && schema.properties === undefined;

/** ObjectMeta's lists and maps, all `omitempty`. */
const METADATA_COLLECTIONS = ['labels', 'annotations', 'finalizers', 'ownerReferences', 'managedFields'];

/**
 * Built-in kinds are Go structs: kube-apiserver drops their empty lists and maps (`omitempty`) when
 * it decodes them, while empty structs stay (`{}`). Applied in place, as the object is stored.
 */
export function omitEmpty(object: JsonObject, schema: Schema | undefined): void {
  for (const [key, value] of Object.entries(object)) {
    const property = propertySchema(schema, key);
    if (Array.isArray(value)) {
      if (value.length === 0) drop(object, key);
      else for (const item of value) if (isObject(item)) omitEmpty(item, property?.items);
    } else if (isObject(value)) {
      omitEmpty(value, property);
      if (Object.keys(value).length === 0 && isMap(property)) drop(object, key);
    }
  }
}

/** ObjectMeta's empty lists and maps, dropped in place (every kind's metadata is ObjectMeta). */
export function omitEmptyMetadata(metadata: JsonObject): void {
  for (const key of METADATA_COLLECTIONS) {
    const value = metadata[key];
    if ((Array.isArray(value) && value.length === 0) || (isObject(value) && Object.keys(value).length === 0)) {
      drop(metadata, key);
    }
  }
}
