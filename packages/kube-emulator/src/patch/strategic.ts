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

/** An item's identity in its list: its merge key's value, or itself for a list of primitives. */
const identityOf = (item: Json, key: string | undefined): Json => (key && isObject(item) ? (item[key] ?? null) : item);
const indexIn = (list: Json[], item: Json, key: string | undefined): number =>
  list.findIndex((entry) => deepEqual(identityOf(entry, key), identityOf(item, key)));

/**
 * apimachinery's mergeSortedSlice: the patch's items in the patch's order, with the items only the
 * server had slotted back in where the live list had them (before a patch item they preceded there).
 */
function interleave(serverOnly: Json[], patchItems: Json[], live: Json[], key: string | undefined): Json[] {
  const result: Json[] = [];
  let [i, j] = [0, 0];
  while (i < serverOnly.length || j < patchItems.length) {
    if (j >= patchItems.length) result.push(serverOnly[i++]!);
    else if (i >= serverOnly.length) result.push(patchItems[j++]!);
    else {
      const [left, right] = [indexIn(live, serverOnly[i]!, key), indexIn(live, patchItems[j]!, key)];
      result.push(left >= 0 && right >= 0 && left < right ? serverOnly[i++]! : patchItems[j++]!);
    }
  }
  return result;
}

/**
 * The order kube-apiserver leaves a merged list in: the items the patch (or its $setElementOrder)
 * names, in that order, interleaved with the items only the live list had.
 */
function orderMerged(merged: Json[], live: Json[], patchOrder: Json[], key: string | undefined): Json[] {
  const named = (item: Json): boolean => indexIn(patchOrder, item, key) >= 0;
  const patchItems = merged.filter(named).sort((a, b) => indexIn(patchOrder, a, key) - indexIn(patchOrder, b, key));
  const serverOnly = merged.filter((item) => !named(item));
  return interleave(serverOnly, patchItems, live, key);
}

/** Merges a list by its merge key (or as a set of primitives), honouring `$patch: replace` and `delete`. */
function mergeList(original: Json | undefined, patch: Json[], schema: Schema | undefined, order?: Json[]): Json[] {
  const live = Array.isArray(original) ? original : [];
  const key = schema?.['x-kubernetes-patch-merge-key'];
  const directive = (item: Json): unknown => (isObject(item) ? item.$patch : undefined);
  if (key && patch.some((item) => directive(item) === 'replace')) {
    return patch.filter((item) => directive(item) === undefined).map((item) => clone(item));
  }
  const merged = [...live];
  for (const item of patch) {
    if (key && !isObject(item)) throw badRequest(`the list item ${JSON.stringify(item)} has no merge key "${key}"`);
    const index = indexIn(merged, item, key);
    if (directive(item) === 'delete') {
      if (index >= 0) merged.splice(index, 1);
    } else if (!key) {
      if (index < 0) merged.push(clone(item));
    } else if (index >= 0) merged[index] = applyStrategicPatch(merged[index], item, schema.items);
    else merged.push(applyStrategicPatch(undefined, item, schema.items));
  }
  const kept = patch.filter((item) => directive(item) !== 'delete');
  return orderMerged(merged, live, order ?? kept, key);
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
  const orders = new Map<string, Json[]>();
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith(ORDER) && Array.isArray(value)) orders.set(key.slice(ORDER.length), value);
  }
  for (const [key, value] of Object.entries(patch)) {
    if (key === '$patch' || key === '$retainKeys' || key.startsWith(ORDER)) continue;
    if (key.startsWith(DELETE_FROM)) {
      const field = key.slice(DELETE_FROM.length);
      const drop = Array.isArray(value) ? value : [];
      const list = result[field];
      if (Array.isArray(list)) result[field] = list.filter((item) => !drop.some((gone) => deepEqual(gone, item)));
      continue;
    }
    const child = propertySchema(schema, key);
    if (value === null) drop(result, key);
    else if (isObject(value) && value.$patch === 'delete') drop(result, key);
    else if (Array.isArray(value)) {
      result[key] = merges(child) ? mergeList(result[key], value, child, orders.get(key)) : clone(value);
    } else result[key] = applyStrategicPatch(result[key], value, child);
  }
  // A $setElementOrder alone reorders the live list.
  for (const [field, wanted] of orders) {
    const list = result[field];
    if (Array.isArray(list) && patch[field] === undefined) {
      result[field] = orderMerged(list, list, wanted, propertySchema(schema, field)?.['x-kubernetes-patch-merge-key']);
    }
  }
  return result;
}

/** A strategic merge patch of a whole object of a kind described by `schema`. */
export const strategicMergePatch = (original: JsonObject, patch: Json, schema: Schema): Json =>
  applyStrategicPatch(original, patch, { ...schema, properties: { ...schema.properties, metadata: METADATA } });
