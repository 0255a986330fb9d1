import { applyDefaults } from '../schema/default.js';
import { prune } from '../schema/prune.js';
import type { Schema } from '../schema/types.js';
import { clone, type JsonObject } from '../util/json.js';

/**
 * kube-apiserver's `None` conversion of a custom resource written at another version than its
 * storage version: only apiVersion changes, then what the storage version's schema does not declare
 * is pruned and its defaults applied, as kube-apiserver does to what it stores. Cluster API's
 * v1beta1 objects written with no conversion webhook lose their references' apiVersion this way.
 */
export function toStorageVersion(apiVersion: string, schema: Schema): (object: JsonObject) => JsonObject {
  return (object) => {
    const stored = clone(object);
    stored.apiVersion = apiVersion;
    prune(stored, schema, '', true);
    applyDefaults(stored, schema);
    return stored;
  };
}
