import { atomicList, boolean, keyedList, kindSchema, object, string, stringMap } from '../../schema/builders.js';
import { ageColumn, column, countOf, nameColumn } from '../../table/columns.js';
import { arrayAt, child, deepEqual, drop, isObject, objectAt, type JsonObject, text } from '../../util/json.js';
import { finalizerCauses } from '../metadata.js';
import { badRequest, type StatusCause } from '../../api/status.js';
import type { ResourceDef } from '../types.js';
import { defineBuiltin } from './define.js';
import { dnsLabelCauses } from '../names.js';

/** The label the apiserver keeps on every Namespace, equal to its name. */
export const NAME_LABEL = 'kubernetes.io/metadata.name';

const reference = object('A reference to an object in the same namespace.', { name: string('Name of the referent.') });

export const namespaces: ResourceDef = defineBuiltin({
  group: '',
  version: 'v1',
  plural: 'namespaces',
  returnsDeletedObject: true,
  kind: 'Namespace',
  namespaced: false,
  shortNames: ['ns'],
  // Namespaces are deleted one by one: DELETE on the collection is 405, and discovery says so.
  verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  statusSubresource: true,
  schema: kindSchema('Namespace provides a scope for Names.', {
    spec: object('Spec defines the behavior of the Namespace.', {
      finalizers: atomicList(
        'Finalizers is an opaque list of values that must be empty to permanently remove object from storage.',
        string('A finalizer name.'),
      ),
    }),
    status: object('Status describes the current status of a Namespace.', {
      phase: string('Phase is the current lifecycle phase of the namespace.', { enum: ['Active', 'Terminating'] }),
      conditions: keyedList("Represents the latest available observations of a namespace's current state.", 'type', {
        type: 'object',
        'x-kubernetes-preserve-unknown-fields': true,
      }),
    }),
  }),
  columns: [
    nameColumn(),
    column('Status', 'string', 'The status of the namespace', (o) => objectAt(o, 'status')?.phase ?? ''),
    ageColumn,
  ],
  strategy: {
    initialize(namespace) {
      // As kube-apiserver: the `kubernetes` finalizer is added to those the namespace asks for.
      const spec = isObject(namespace.spec) ? namespace.spec : (namespace.spec = {});
      const finalizers = arrayAt(spec, 'finalizers') ?? [];
      spec.finalizers = finalizers.includes('kubernetes') ? finalizers : [...finalizers, 'kubernetes'];
    },
    validate: (namespace) => [
      ...dnsLabelCauses(objectAt(namespace, 'metadata')?.name, 'metadata.name'),
      ...finalizerCauses(arrayAt(objectAt(namespace, 'spec'), 'finalizers') ?? [], 'spec.finalizers', true),
      ...phaseCauses(namespace),
    ],
    validatesName: true,
    // As kube-apiserver's namespace strategies: spec.finalizers change through /finalize alone;
    // /status keeps the spec, /finalize the status, and both keep metadata changes (labels too).
    keepOnUpdate(namespace, old) {
      const spec: JsonObject = { ...objectAt(namespace, 'spec') };
      const finalizers = objectAt(old, 'spec')?.finalizers;
      if (finalizers === undefined) delete spec.finalizers;
      else spec.finalizers = finalizers;
      namespace.spec = spec;
    },
    updateSubresource(subresource, body, old) {
      const kept = subresource === 'status' ? 'spec' : 'status';
      const object: JsonObject = { ...body };
      if (old[kept] === undefined) drop(object, kept);
      else object[kept] = old[kept];
      return object;
    },
    // The first delete only marks a namespace Terminating (the namespace controller empties it);
    // then its spec.finalizers hold it.
    holdsDeletion: (namespace) =>
      !objectAt(namespace, 'metadata')?.deletionTimestamp ||
      (arrayAt(objectAt(namespace, 'spec'), 'finalizers') ?? []).length > 0,
    derive(namespace) {
      // As the apiserver does on every write: selectors can pick namespaces by name, and the label cannot be removed.
      const metadata = objectAt(namespace, 'metadata')!;
      child(metadata, 'labels')[NAME_LABEL] = metadata.name ?? null;
      // Namespaces are not deleted gracefully: they never carry a grace period.
      drop(metadata, 'deletionGracePeriodSeconds');
      const status = isObject(namespace.status) ? namespace.status : (namespace.status = {});
      status.phase = metadata.deletionTimestamp ? 'Terminating' : 'Active';
    },
  },
});

/** A Namespace's phase follows its deletionTimestamp; a written status must agree. */
function phaseCauses(namespace: JsonObject): StatusCause[] {
  const phase = objectAt(namespace, 'status')?.phase;
  const deleting = Boolean(objectAt(namespace, 'metadata')?.deletionTimestamp);
  if (phase === undefined || phase === (deleting ? 'Terminating' : 'Active')) return [];
  return [
    {
      reason: 'FieldValueInvalid',
      field: 'status.Phase',
      message: deleting
        ? `Invalid value: ${JSON.stringify(phase)}: may only be 'Terminating' if \`deletionTimestamp\` is not empty`
        : `Invalid value: ${JSON.stringify(phase)}: may only be 'Active' if \`deletionTimestamp\` is empty`,
    },
  ];
}

export const secrets: ResourceDef = defineBuiltin({
  group: '',
  version: 'v1',
  plural: 'secrets',
  kind: 'Secret',
  namespaced: true,
  schema: kindSchema('Secret holds secret data of a certain type.', {
    data: {
      ...stringMap('Data contains the secret data, base64 encoded.'),
      additionalProperties: { type: 'string', format: 'byte' },
    },
    stringData: stringMap('stringData allows specifying non-binary secret data in string form. It is write-only.'),
    type: string('Used to facilitate programmatic handling of secret data.'),
    immutable: boolean('Immutable, if set to true, ensures that data stored in the Secret cannot be updated.'),
  }),
  columns: [
    nameColumn(),
    column(
      'Type',
      'string',
      'Used to facilitate programmatic handling of secret data. More info: https://kubernetes.io/docs/concepts/configuration/secret/#secret-types',
      (o) => o.type ?? '',
    ),
    column(
      'Data',
      'string',
      "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. The serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4",
      (o) => countOf(o.data),
    ),
    ageColumn,
  ],
  strategy: {
    normalize(secret) {
      checkBase64(secret, 'Secret', 'data');
      const stringData = objectAt(secret, 'stringData');
      if (stringData) {
        const data = isObject(secret.data) ? secret.data : {};
        for (const [key, value] of Object.entries(stringData)) {
          data[key] = Buffer.from(text(value)).toString('base64');
        }
        secret.data = data;
        delete secret.stringData;
      }
      if (!secret.type) secret.type = 'Opaque';
    },
    validate: (secret, old) => [...keyCauses(secret, ['data']), ...immutableCauses(secret, old, ['data'])],
  },
});

/** Go's base64 decoder's complaint about a value, if any (`illegal base64 data at input byte 3`). */
function base64Error(value: string): string | undefined {
  const bad = value.search(/[^A-Za-z0-9+/=]/);
  if (bad >= 0) return `illegal base64 data at input byte ${bad}`;
  const padding = value.indexOf('=');
  if (padding >= 0 && (!/^=*$/.test(value.slice(padding)) || value.length % 4 !== 0 || value.length - padding > 2)) {
    return `illegal base64 data at input byte ${padding}`;
  }
  if (value.length % 4 === 1) return `illegal base64 data at input byte ${value.length - 1}`;
  return undefined;
}

/** `[]byte` fields are base64 in JSON: kube-apiserver refuses the body (400) when one does not decode. */
function checkBase64(object: JsonObject, kind: string, field: string): void {
  for (const value of Object.values(objectAt(object, field) ?? {})) {
    const error = typeof value === 'string' ? base64Error(value) : undefined;
    if (error) throw badRequest(`${kind} in version "v1" cannot be handled as a ${kind}: ${error}`);
  }
}

/** apimachinery's IsConfigMapKey: the keys of ConfigMaps and Secrets (`data[key]`). */
function keyCauses(object: JsonObject, fields: string[]): StatusCause[] {
  const causes: StatusCause[] = [];
  const invalidKey = (field: string, key: string, why: string): StatusCause => ({
    reason: 'FieldValueInvalid',
    field: `${field}[${key}]`,
    message: `Invalid value: ${JSON.stringify(key)}: ${why}`,
  });
  for (const field of fields) {
    for (const key of Object.keys(objectAt(object, field) ?? {})) {
      if (key.length > 253) causes.push(invalidKey(field, key, 'must be no more than 253 characters'));
      if (!/^[-._a-zA-Z0-9]+$/.test(key)) {
        causes.push(
          invalidKey(
            field,
            key,
            "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
          ),
        );
      }
      if (key === '.' || key === '..') causes.push(invalidKey(field, key, `must not be '${key}'`));
      else if (key.startsWith('..')) causes.push(invalidKey(field, key, "must not start with '..'"));
      if (field === 'data' && fields.includes('binaryData') && objectAt(object, 'binaryData')?.[key] !== undefined) {
        causes.push(invalidKey(field, key, 'duplicate of key present in binaryData'));
      }
    }
  }
  return causes;
}

/** Once `immutable: true`, neither it nor the data may change. */
function immutableCauses(object: JsonObject, old: JsonObject | undefined, fields: string[]): StatusCause[] {
  if (old?.immutable !== true) return [];
  const forbidden = (field: string): StatusCause => ({
    reason: 'FieldValueForbidden',
    field,
    message: 'Forbidden: field is immutable when `immutable` is set',
  });
  return [
    ...(object.immutable === true ? [] : [forbidden('immutable')]),
    ...fields.filter((field) => !deepEqual(object[field], old[field])).map(forbidden),
  ];
}

export const configMaps: ResourceDef = defineBuiltin({
  group: '',
  version: 'v1',
  plural: 'configmaps',
  kind: 'ConfigMap',
  namespaced: true,
  shortNames: ['cm'],
  schema: kindSchema('ConfigMap holds configuration data for pods to consume.', {
    data: stringMap('Data contains the configuration data.'),
    binaryData: stringMap('BinaryData contains the binary data, base64 encoded.'),
    immutable: boolean('Immutable, if set to true, ensures that data stored in the ConfigMap cannot be updated.'),
  }),
  columns: [
    nameColumn(),
    column(
      'Data',
      'string',
      "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process.",
      (o) => countOf(o.data, o.binaryData),
    ),
    ageColumn,
  ],
  strategy: {
    normalize: (configMap) => checkBase64(configMap, 'ConfigMap', 'binaryData'),
    validate: (configMap, old) => [
      ...keyCauses(configMap, ['data', 'binaryData']),
      ...immutableCauses(configMap, old, ['data', 'binaryData']),
    ],
  },
});

export const serviceAccounts: ResourceDef = defineBuiltin({
  group: '',
  version: 'v1',
  plural: 'serviceaccounts',
  returnsDeletedObject: true,
  kind: 'ServiceAccount',
  namespaced: true,
  shortNames: ['sa'],
  schema: kindSchema('ServiceAccount binds together a name, a principal, and a set of secrets.', {
    secrets: keyedList('Secrets is a list of the secrets in the same namespace that pods may use.', 'name', reference),
    imagePullSecrets: atomicList('ImagePullSecrets is a list of references to secrets for pulling images.', reference),
    automountServiceAccountToken: boolean(
      'Whether pods running as this service account should have an API token automatically mounted.',
    ),
  }),
  columns: [
    nameColumn(),
    column(
      'Secrets',
      'string',
      'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use. Pods are only limited to this list if this service account has a "kubernetes.io/enforce-mountable-secrets" annotation set to "true". The "kubernetes.io/enforce-mountable-secrets" annotation is deprecated since v1.32. Prefer separate namespaces to isolate access to mounted secrets. This field should not be used to find auto-generated service account token secrets for use outside of pods. Instead, tokens can be requested directly using the TokenRequest API, or service account token secrets can be manually created. More info: https://kubernetes.io/docs/concepts/configuration/secret',
      (o) => countOf(o.secrets),
    ),
    ageColumn,
  ],
});
