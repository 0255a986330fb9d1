import { atomicList, boolean, keyedList, kindSchema, object, string, stringMap } from '../../schema/builders.js';
import { ageColumn, column, countOf, nameColumn } from '../../table/columns.js';
import { arrayAt, child, isObject, objectAt, type JsonObject, text } from '../../util/json.js';
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
      const spec = (namespace.spec ??= {}) as JsonObject;
      spec.finalizers = ['kubernetes'];
    },
    validate: (namespace) => dnsLabelCauses(objectAt(namespace, 'metadata')?.name, 'metadata.name'),
    validatesName: true,
    holdsDeletion: (namespace) => (arrayAt(objectAt(namespace, 'spec'), 'finalizers') ?? []).length > 0,
    derive(namespace) {
      // As the apiserver does on every write: selectors can pick namespaces by name, and the label cannot be removed.
      const metadata = objectAt(namespace, 'metadata')!;
      child(metadata, 'labels')[NAME_LABEL] = metadata.name ?? null;
      const status = isObject(namespace.status) ? namespace.status : (namespace.status = {});
      status.phase = objectAt(namespace, 'metadata')?.deletionTimestamp ? 'Terminating' : 'Active';
    },
  },
});

export const secrets: ResourceDef = defineBuiltin({
  group: '',
  version: 'v1',
  plural: 'secrets',
  kind: 'Secret',
  namespaced: true,
  schema: kindSchema('Secret holds secret data of a certain type.', {
    data: stringMap('Data contains the secret data, base64 encoded.'),
    stringData: stringMap('stringData allows specifying non-binary secret data in string form. It is write-only.'),
    type: string('Used to facilitate programmatic handling of secret data.'),
    immutable: boolean('Immutable, if set to true, ensures that data stored in the Secret cannot be updated.'),
  }),
  columns: [
    nameColumn(),
    column('Type', 'string', 'The type of the secret', (o) => o.type ?? ''),
    column('Data', 'string', 'The number of entries in the secret', (o) => countOf(o.data)),
    ageColumn,
  ],
  strategy: {
    normalize(secret) {
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
    validate(secret) {
      const data = objectAt(secret, 'data') ?? {};
      return Object.entries(data)
        .filter(([, value]) => typeof value !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(value))
        .map(([key]) => ({
          reason: 'FieldValueInvalid',
          field: `data[${key}]`,
          message: 'Invalid value: "<secret contents redacted>": a valid base64 string is required',
        }));
    },
  },
});

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
    column('Data', 'string', 'The number of entries in the ConfigMap', (o) => countOf(o.data, o.binaryData)),
    ageColumn,
  ],
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
  columns: [nameColumn(), column('Secrets', 'string', 'The number of secrets', (o) => countOf(o.secrets)), ageColumn],
});
