import { clone, isObject, type Json, drop } from '../util/json.js';

/** RFC 7386 JSON merge patch: objects merge, null deletes, everything else replaces. */
export function applyMergePatch(target: Json | undefined, patch: Json): Json {
  if (!isObject(patch)) return clone(patch);
  const result = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) drop(result, key);
    else result[key] = applyMergePatch(result[key], value);
  }
  return result;
}
