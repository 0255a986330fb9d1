import { badRequest } from '../api/status.js';
import { propertySchema, type Schema } from '../schema/types.js';
import { clone, deepEqual, isObject, type Json, type JsonObject, drop } from '../util/json.js';

/** ObjectMeta's patch strategies: finalizers merge as a set, ownerReferences by uid. */
const METADATA: Schema = {
  type: 'object',
  properties: {
    finalizers: { type: 'array', items: { type: 'string' }, 'x-kubernetes-patch-strategy': 'merge' },
    ownerReferences: {
      type: 'array',
      items: { type: 'object' },
      'x-kubernetes-patch-merge-key': 'uid',
      'x-kubernetes-patch-strategy': 'merge',
    },
  },
};

const merges = (schema: Schema | undefined): boolean =>
  (schema?.['x-kubernetes-patch-strategy'] ?? '').split(',').includes('merge');

const DELETE_FROM = '$deleteFromPrimitiveList/';
const ORDER = '$setElementOrder/';

function order(items: Json[], wanted: Json[], key: string | undefined): Json[] {
  const identity = (item: Json): Json => (key && isObject(item) ? (item[key] ?? null) : item);
  const position = (item: Json): number => {
    const index = wanted.findIndex((entry) => deepEqual(key && isObject(entry) ? entry[key] : entry, identity(item)));
    return index < 0 ? wanted.length : index;
  };
  return [...items].sort((a, b) => position(a) - position(b));
}

function mergeList(original: Json | undefined, patch: Json[], schema: Schema | undefined): Json[] {
  const base = Array.isArray(original) ? [...original] : [];
  const key = schema?.['x-kubernetes-patch-merge-key'];
  if (!key) {
    for (const item of patch) if (!base.some((existing) => deepEqual(existing, item))) base.push(clone(item));
    return base;
  }
  for (const item of patch) {
    if (!isObject(item)) throw badRequest(`the list item ${JSON.stringify(item)} has no merge key "${key}"`);
    const index = base.findIndex((existing) => isObject(existing) && deepEqual(existing[key], item[key]));
    if (item.$patch === 'delete') {
      if (index >= 0) base.splice(index, 1);
    } else if (index >= 0) base[index] = applyStrategicPatch(base[index], item, schema.items);
    else base.push(applyStrategicPatch(undefined, item, schema.items));
  }
  return base;
}

/**
 * Strategic merge patch, as the apiserver applies it to built-in kinds: like a merge patch, except
 * that lists with a merge strategy merge (by their merge key), and the `$patch`, `$retainKeys`,
 * `$deleteFromPrimitiveList` and `$setElementOrder` directives.
 */
function applyStrategicPatch(original: Json | undefined, patch: Json, schema: Schema | undefined): Json {
  if (!isObject(patch)) return clone(patch);
  const directive = patch.$patch;
  if (directive === 'replace') {
    const replaced = clone(patch);
    delete replaced.$patch;
    return replaced;
  }
  const result: JsonObject = isObject(original) ? { ...original } : {};
  const retain = patch.$retainKeys;
  if (Array.isArray(retain)) for (const key of Object.keys(result)) if (!retain.includes(key)) drop(result, key);
  const orders: [string, Json[]][] = [];
  for (const [key, value] of Object.entries(patch)) {
    if (key === '$patch' || key === '$retainKeys') continue;
    if (key.startsWith(DELETE_FROM)) {
      const field = key.slice(DELETE_FROM.length);
      const drop = Array.isArray(value) ? value : [];
      const list = result[field];
      if (Array.isArray(list)) result[field] = list.filter((item) => !drop.some((gone) => deepEqual(gone, item)));
      continue;
    }
    if (key.startsWith(ORDER)) {
      if (Array.isArray(value)) orders.push([key.slice(ORDER.length), value]);
      continue;
    }
    const child = propertySchema(schema, key);
    if (value === null) drop(result, key);
    else if (isObject(value) && value.$patch === 'delete') drop(result, key);
    else if (Array.isArray(value)) result[key] = merges(child) ? mergeList(result[key], value, child) : clone(value);
    else result[key] = applyStrategicPatch(result[key], value, child);
  }
  for (const [field, wanted] of orders) {
    const list = result[field];
    const child = propertySchema(schema, field);
    if (Array.isArray(list)) result[field] = order(list, wanted, child?.['x-kubernetes-patch-merge-key']);
  }
  return result;
}

/** A strategic merge patch of a whole object of a kind described by `schema`. */
export const strategicMergePatch = (original: JsonObject, patch: Json, schema: Schema): Json =>
  applyStrategicPatch(original, patch, { ...schema, properties: { ...schema.properties, metadata: METADATA } });
