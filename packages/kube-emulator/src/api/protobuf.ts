import { isObject, type Json, type JsonObject, text } from '../util/json.js';
import { unsupportedMediaType } from './status.js';

/** The Kubernetes protobuf envelope: these magic bytes, then a runtime.Unknown message. */
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

type Scalar = 'string' | 'bytes' | 'bool' | 'int' | 'time';
interface Field {
  name: string;
  type: Scalar | 'message' | 'map';
  repeated?: boolean;
  message?: Message;
  /** Value type of a map field. */
  values?: 'string' | 'bytes';
}
type Message = Record<number, Field>;

const REFERENCE: Message = {
  1: { name: 'kind', type: 'string' },
  2: { name: 'namespace', type: 'string' },
  3: { name: 'name', type: 'string' },
  4: { name: 'uid', type: 'string' },
  5: { name: 'apiVersion', type: 'string' },
  6: { name: 'resourceVersion', type: 'string' },
  7: { name: 'fieldPath', type: 'string' },
};
const OWNER_REFERENCE: Message = {
  1: { name: 'kind', type: 'string' },
  3: { name: 'name', type: 'string' },
  4: { name: 'uid', type: 'string' },
  5: { name: 'apiVersion', type: 'string' },
  6: { name: 'controller', type: 'bool' },
  7: { name: 'blockOwnerDeletion', type: 'bool' },
};
const OBJECT_META: Message = {
  1: { name: 'name', type: 'string' },
  2: { name: 'generateName', type: 'string' },
  3: { name: 'namespace', type: 'string' },
  5: { name: 'uid', type: 'string' },
  6: { name: 'resourceVersion', type: 'string' },
  7: { name: 'generation', type: 'int' },
  8: { name: 'creationTimestamp', type: 'time' },
  11: { name: 'labels', type: 'map', values: 'string' },
  12: { name: 'annotations', type: 'map', values: 'string' },
  13: { name: 'ownerReferences', type: 'message', repeated: true, message: OWNER_REFERENCE },
  14: { name: 'finalizers', type: 'string', repeated: true },
};
const metadata: Field = { name: 'metadata', type: 'message', message: OBJECT_META };

const strings = (name: string): Field => ({ name, type: 'string', repeated: true });
const POLICY_RULE: Message = {
  1: strings('verbs'),
  2: strings('apiGroups'),
  3: strings('resources'),
  4: strings('resourceNames'),
  5: strings('nonResourceURLs'),
};
const ROLE: Message = { 1: metadata, 2: { name: 'rules', type: 'message', repeated: true, message: POLICY_RULE } };
const LABEL_SELECTOR: Message = {
  1: { name: 'matchLabels', type: 'map', values: 'string' },
  2: {
    name: 'matchExpressions',
    type: 'message',
    repeated: true,
    message: { 1: { name: 'key', type: 'string' }, 2: { name: 'operator', type: 'string' }, 3: strings('values') },
  },
};
const AGGREGATION_RULE: Message = {
  1: { name: 'clusterRoleSelectors', type: 'message', repeated: true, message: LABEL_SELECTOR },
};
const BINDING: Message = {
  1: metadata,
  2: {
    name: 'subjects',
    type: 'message',
    repeated: true,
    message: {
      1: { name: 'kind', type: 'string' },
      2: { name: 'apiGroup', type: 'string' },
      3: { name: 'name', type: 'string' },
      4: { name: 'namespace', type: 'string' },
    },
  },
  3: {
    name: 'roleRef',
    type: 'message',
    message: {
      1: { name: 'apiGroup', type: 'string' },
      2: { name: 'kind', type: 'string' },
      3: { name: 'name', type: 'string' },
    },
  },
};

const TOKEN_REQUEST_SPEC: Message = {
  1: strings('audiences'),
  3: {
    name: 'boundObjectRef',
    type: 'message',
    message: {
      1: { name: 'kind', type: 'string' },
      2: { name: 'apiVersion', type: 'string' },
      3: { name: 'name', type: 'string' },
      4: { name: 'uid', type: 'string' },
    },
  },
  4: { name: 'expirationSeconds', type: 'int' },
};

/** The kinds kubectl 1.33 sends as protobuf (its `create namespace|secret|...|token`, `auth whoami`). */
const KINDS: Record<string, Message> = {
  'v1/Namespace': {
    1: metadata,
    2: { name: 'spec', type: 'message', message: { 1: { name: 'finalizers', type: 'string', repeated: true } } },
  },
  'v1/Secret': {
    1: metadata,
    2: { name: 'data', type: 'map', values: 'bytes' },
    3: { name: 'type', type: 'string' },
    4: { name: 'stringData', type: 'map', values: 'string' },
    5: { name: 'immutable', type: 'bool' },
  },
  'v1/ConfigMap': {
    1: metadata,
    2: { name: 'data', type: 'map', values: 'string' },
    3: { name: 'binaryData', type: 'map', values: 'bytes' },
    4: { name: 'immutable', type: 'bool' },
  },
  'v1/ServiceAccount': {
    1: metadata,
    2: { name: 'secrets', type: 'message', repeated: true, message: REFERENCE },
    3: { name: 'imagePullSecrets', type: 'message', repeated: true, message: { 1: { name: 'name', type: 'string' } } },
    4: { name: 'automountServiceAccountToken', type: 'bool' },
  },
  'rbac.authorization.k8s.io/v1/Role': ROLE,
  'rbac.authorization.k8s.io/v1/ClusterRole': {
    ...ROLE,
    3: { name: 'aggregationRule', type: 'message', message: AGGREGATION_RULE },
  },
  'rbac.authorization.k8s.io/v1/RoleBinding': BINDING,
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': BINDING,
  'authentication.k8s.io/v1/TokenRequest': {
    1: metadata,
    2: { name: 'spec', type: 'message', message: TOKEN_REQUEST_SPEC },
  },
  // `kubectl auth whoami`: a review that asks nothing.
  'authentication.k8s.io/v1/SelfSubjectReview': { 1: metadata },
};

class Reader {
  private offset = 0;
  constructor(private readonly buffer: Buffer) {}

  get done(): boolean {
    return this.offset >= this.buffer.length;
  }

  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const byte = this.buffer[this.offset++];
      if (byte === undefined) throw new Error('truncated varint');
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
  }

  bytes(): Buffer {
    const length = Number(this.varint());
    const value = this.buffer.subarray(this.offset, this.offset + length);
    this.offset += length;
    return value;
  }

  skip(wireType: number): void {
    if (wireType === 0) this.varint();
    else if (wireType === 1) this.offset += 8;
    else if (wireType === 2) this.bytes();
    else if (wireType === 5) this.offset += 4;
    else throw new Error(`unsupported wire type ${wireType}`);
  }
}

function decodeMessage(buffer: Buffer, message: Message): JsonObject {
  const reader = new Reader(buffer);
  const result: JsonObject = {};
  while (!reader.done) {
    const key = Number(reader.varint());
    const field = message[key >> 3];
    if (!field) {
      reader.skip(key & 7);
      continue;
    }
    const value = decodeField(reader, field);
    // Go writes empty strings; JSON clients omit them, and so does the apiserver's decoding.
    if (value === '' && !field.repeated) continue;
    if (field.type === 'map') {
      const entries = (isObject(result[field.name]) ? result[field.name] : {}) as JsonObject;
      result[field.name] = Object.assign(entries, value);
    } else if (field.repeated) result[field.name] = [...((result[field.name] as Json[] | undefined) ?? []), value];
    else result[field.name] = value;
  }
  return result;
}

function decodeField(reader: Reader, field: Field): Json {
  switch (field.type) {
    case 'string':
      return reader.bytes().toString('utf8');
    case 'bytes':
      return reader.bytes().toString('base64');
    case 'bool':
      return reader.varint() !== 0n;
    case 'int':
      return Number(BigInt.asIntN(64, reader.varint()));
    case 'time': {
      const time = decodeMessage(reader.bytes(), { 1: { name: 'seconds', type: 'int' } });
      return new Date(Number(time.seconds ?? 0) * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
    }
    case 'message':
      return decodeMessage(reader.bytes(), field.message!);
    case 'map': {
      const entry = decodeMessage(reader.bytes(), {
        1: { name: 'key', type: 'string' },
        2: { name: 'value', type: field.values ?? 'string' },
      });
      return { [text(entry.key ?? '')]: entry.value ?? '' };
    }
  }
}

/** Decodes a `application/vnd.kubernetes.protobuf` body of the kinds kubectl sends that way; 415 for others. */
export function decodeKubernetesProtobuf(body: Buffer): JsonObject {
  const rejected = unsupportedMediaType('application/json, application/yaml');
  if (!body.subarray(0, 4).equals(MAGIC)) throw rejected;
  const unknown = decodeMessage(body.subarray(4), {
    1: {
      name: 'typeMeta',
      type: 'message',
      message: { 1: { name: 'apiVersion', type: 'string' }, 2: { name: 'kind', type: 'string' } },
    },
    2: { name: 'raw', type: 'bytes' },
  });
  const typeMeta = (unknown.typeMeta ?? {}) as JsonObject;
  const message = KINDS[`${text(typeMeta.apiVersion)}/${text(typeMeta.kind)}`];
  if (!message) throw rejected;
  const object = decodeMessage(Buffer.from(text(unknown.raw ?? ''), 'base64'), message);
  return { apiVersion: typeMeta.apiVersion ?? null, kind: typeMeta.kind ?? null, ...object };
}
