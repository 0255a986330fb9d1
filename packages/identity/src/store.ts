import { ApiException, CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { GROUP, IDENTITY_KINDS, KINDS, VERSION, type IdentityKind, type IdentityObject } from '@keymaster/api';
import { isNamespacedKind } from './identity-id.js';
import type { NamespaceInfo } from './namespaces.js';

export type { IdentityObject };

/** A Secret's data, base64-encoded as the API returns it. */
export interface SecretData {
  data: Record<string, string>;
}

/**
 * Where the resolver reads identities, Secrets and namespaces. The reconciler backs it with its
 * informer caches; `kubeIdentityStore` reads the API server directly.
 */
export interface IdentityStore {
  /** `namespace` is the asking one: where a namespaced kind is looked up (cluster-scoped kinds ignore it). */
  getIdentity(kind: IdentityKind, name: string, namespace: string): Promise<IdentityObject | undefined>;
  /** Every identity of every kind, of every namespace (which identities are made from which: a source is never vended). */
  listIdentities(): Promise<IdentityObject[]>;
  getSecret(namespace: string, name: string): Promise<SecretData | undefined>;
  getNamespace(name: string): Promise<NamespaceInfo | undefined>;
}

const PLURALS = new Map(KINDS.map(({ kind, plural }) => [kind, plural]));

async function orUndefined<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (error) {
    if (error instanceof ApiException && error.code === 404) return undefined;
    throw error;
  }
}

/** An IdentityStore that reads every object from the API server (GET, and a LIST per identity kind). */
export function kubeIdentityStore(kubeConfig: KubeConfig): IdentityStore {
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  return {
    getIdentity: (kind, name, namespace) => {
      const object = { group: GROUP, version: VERSION, plural: PLURALS.get(kind)!, name };
      return orUndefined(
        (isNamespacedKind(kind)
          ? custom.getNamespacedCustomObject({ ...object, namespace })
          : custom.getClusterCustomObject(object)) as Promise<IdentityObject>,
      );
    },
    listIdentities: async () =>
      (
        await Promise.all(
          IDENTITY_KINDS.map(
            (kind) =>
              custom.listClusterCustomObject({
                group: GROUP,
                version: VERSION,
                plural: PLURALS.get(kind)!,
              }) as Promise<{
                items: IdentityObject[];
              }>,
          ),
        )
      ).flatMap(({ items }) => items),
    getSecret: async (namespace, name) => {
      const secret = await orUndefined(core.readNamespacedSecret({ namespace, name }));
      return secret && { data: secret.data ?? {} };
    },
    getNamespace: async (name) => {
      const namespace = await orUndefined(core.readNamespace({ name }));
      return namespace && { name, labels: namespace.metadata?.labels ?? {} };
    },
  };
}
