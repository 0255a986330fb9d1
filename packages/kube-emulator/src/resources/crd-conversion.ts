import { storageError } from '../api/status.js';
import { applyDefaults } from '../schema/default.js';
import { prune } from '../schema/prune.js';
import type { Schema } from '../schema/types.js';
import { clone, objectAt, stringAt, text, type JsonObject } from '../util/json.js';

/** Where kube-apiserver would post a ConversionReview: the Service's address, or the webhook's URL. */
function webhookAddress(clientConfig: JsonObject | undefined): { url: string; service?: string } {
  const service = objectAt(clientConfig, 'service');
  if (!service) return { url: text(stringAt(clientConfig, 'url')) };
  const name = text(service.name);
  // The CRD's normalization defaulted the port.
  return {
    url: `https://${name}.${text(service.namespace)}.svc:${text(service.port)}${text(service.path)}`,
    service: name,
  };
}

/**
 * How an object written at another version than its CRD's storage version is stored, as
 * kube-apiserver converts it. `None`: only apiVersion changes, then what the storage version's
 * schema does not declare is pruned and its defaults applied (Cluster API's v1beta1 objects, written
 * with no conversion webhook, lose their references' apiVersion this way). `Webhook`: the emulator
 * runs no webhook, and answers as kube-apiserver does when the webhook's Service does not exist.
 */
export function toStorageVersion(
  conversion: JsonObject | undefined,
  storage: { apiVersion: string; kind: string; schema: Schema },
): (object: JsonObject) => JsonObject {
  if (conversion?.strategy === 'Webhook') {
    const { url, service } = webhookAddress(objectAt(objectAt(conversion, 'webhook'), 'clientConfig'));
    const why = service ? `service "${service}" not found` : 'the kube-emulator calls no conversion webhook';
    return (object) => {
      throw storageError(
        `conversion webhook for ${text(object.apiVersion)}, Kind=${storage.kind} failed: Post "${url}?timeout=30s": ${why}`,
      );
    };
  }
  return (object) => {
    const stored = clone(object);
    stored.apiVersion = storage.apiVersion;
    prune(stored, storage.schema, '', true);
    applyDefaults(stored, storage.schema);
    return stored;
  };
}
