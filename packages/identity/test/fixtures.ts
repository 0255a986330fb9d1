import {
  API_VERSION,
  GROUP,
  type AWSClusterRoleIdentitySpec,
  type AllowedNamespaces,
  type IdentityKind,
} from '@keymaster/api';
import {
  groupOf,
  isNamespacedKind,
  type IdentityObject,
  type IdentityStore,
  type NamespaceInfo,
  type SecretData,
} from '../src/index.js';

let uid = 0;

export function identity(kind: IdentityKind, name: string, spec: Record<string, unknown>): IdentityObject {
  uid += 1;
  return { apiVersion: API_VERSION, kind, metadata: { name, uid: `uid-${uid}` }, spec } as IdentityObject;
}

export const controller = (allowedNamespaces: AllowedNamespaces = {}) =>
  identity('AWSClusterControllerIdentity', 'default', { allowedNamespaces });

export const staticIdentity = (name: string, secretRef: string, allowedNamespaces: AllowedNamespaces = {}) =>
  identity('AWSClusterStaticIdentity', name, { secretRef, allowedNamespaces });

export const role = (name: string, spec: Partial<AWSClusterRoleIdentitySpec> = {}) =>
  identity('AWSClusterRoleIdentity', name, {
    roleARN: `arn:aws:iam::111111111111:role/${name}`,
    allowedNamespaces: {},
    ...spec,
  });

/** A tenant's own identity, in its namespace. */
export const serviceAccountIdentity = (namespace: string, name: string, spec: Record<string, unknown> = {}) => {
  const object = identity('AWSServiceAccountIdentity', name, {
    roleARN: `arn:aws:iam::222222222222:role/${name}`,
    serviceAccountName: 'keymaster',
    ...spec,
  });
  object.metadata.namespace = namespace;
  return object;
};

/** An IdentityStore over plain maps, for tests of pure logic; the integration tests use the kube-emulator. */
export function memoryStore(
  objects: IdentityObject[],
  secrets: Record<string, SecretData> = {},
  namespaces: NamespaceInfo[] = [],
) {
  const reads = { identities: 0, secrets: [] as string[] };
  const store: IdentityStore = {
    getIdentity: (kind, name, namespace, apiGroup = GROUP) => {
      reads.identities += 1;
      const where = isNamespacedKind(kind) ? namespace : undefined;
      return Promise.resolve(
        objects.find(
          (object) =>
            groupOf(object) === apiGroup &&
            object.kind === kind &&
            object.metadata.name === name &&
            object.metadata.namespace === where,
        ),
      );
    },
    listIdentities: () => Promise.resolve(objects),
    getSecret: (namespace, name) => {
      reads.secrets.push(`${namespace}/${name}`);
      return Promise.resolve(secrets[`${namespace}/${name}`]);
    },
    getNamespace: (name) => Promise.resolve(namespaces.find((namespace) => namespace.name === name)),
  };
  return { store, reads };
}

export const keys = (accessKeyId: string, secretAccessKey = 'secret'): SecretData => ({
  data: {
    AccessKeyID: Buffer.from(accessKeyId).toString('base64'),
    SecretAccessKey: Buffer.from(secretAccessKey).toString('base64'),
  },
});
