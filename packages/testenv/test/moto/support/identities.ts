import { API_VERSION, type AWSClusterRoleIdentitySpec, type IdentityKind } from '@keymaster/api';
import { IdentityResolver, type IdentityObject, type IdentityStore, type NamespaceInfo } from '@keymaster/identity';
import type { Keys } from './clients.js';

function identity(kind: IdentityKind, name: string, spec: Record<string, unknown>): IdentityObject {
  return { apiVersion: API_VERSION, kind, metadata: { name, uid: `uid-${kind}-${name}` }, spec } as IdentityObject;
}

/** The controller identity `default`, for the namespaces listed. */
export const controllerIdentity = (namespaces: string[]): IdentityObject =>
  identity('AWSClusterControllerIdentity', 'default', { allowedNamespaces: { list: namespaces } });

/** An AWSClusterRoleIdentity allowed in the namespaces listed. */
export const roleIdentity = (
  name: string,
  namespaces: string[],
  spec: Partial<AWSClusterRoleIdentitySpec> & { roleARN: string },
): IdentityObject => identity('AWSClusterRoleIdentity', name, { allowedNamespaces: { list: namespaces }, ...spec });

/** Identities and namespaces held in memory: what the controller reads from its informers. */
function memoryStore(identities: readonly IdentityObject[], namespaces: readonly string[]): IdentityStore {
  const labelled: NamespaceInfo[] = namespaces.map((name) => ({ name, labels: {} }));
  return {
    getIdentity: (kind, name) =>
      Promise.resolve(identities.find((object) => object.kind === kind && object.metadata.name === name)),
    listIdentities: () => Promise.resolve([...identities]),
    getSecret: () => Promise.resolve(undefined),
    getNamespace: (name) => Promise.resolve(labelled.find((namespace) => namespace.name === name)),
  };
}

/**
 * Keymaster's IdentityResolver, as the controller makes it, against `endpoint`: the controller acts
 * with `controllerKeys`, every client it hands out talks to that endpoint.
 */
export function resolverFor(
  endpoint: string,
  controllerKeys: Keys,
  identities: readonly IdentityObject[],
  namespaces: readonly string[],
): IdentityResolver {
  return new IdentityResolver({
    store: memoryStore(identities, namespaces),
    controllerNamespace: 'keymaster-system',
    controllerCredentials: () => Promise.resolve(controllerKeys),
    aws: { endpoint },
  });
}
