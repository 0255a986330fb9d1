import { ApiException, CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import {
  CAPA_GROUP,
  CAPA_IDENTITY_KINDS,
  GROUP,
  IDENTITY_KINDS,
  KINDS,
  VERSION,
  type IdentityKind,
  type IdentityObject,
} from '@keymaster/api';
import { CAPA_VERSION, CapaIdentitiesNotReadError, capaIdentity, type CapaOptions } from './capa.js';
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
  /**
   * `namespace` is the asking one: where a namespaced kind is looked up (cluster-scoped kinds ignore it).
   * `apiGroup` CAPA's: CAPA's identity of that kind, adapted (`capaIdentity`); Keymaster's otherwise.
   * Throws CapaIdentitiesNotReadError for CAPA's when the store reads none of them.
   */
  getIdentity(
    kind: IdentityKind,
    name: string,
    namespace: string,
    apiGroup?: string,
  ): Promise<IdentityObject | undefined>;
  /** Every Keymaster identity of every kind, of every namespace (which are made from which: a source is never vended). */
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

/**
 * An IdentityStore that reads every object from the API server (GET, and a LIST per identity kind);
 * CAPA's identities only with `capa` (else none are found).
 */
export function kubeIdentityStore(kubeConfig: KubeConfig, capa?: CapaOptions): IdentityStore {
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  return {
    getIdentity: async (kind, name, namespace, apiGroup = GROUP) => {
      if (apiGroup === CAPA_GROUP) {
        if (!capa) throw new CapaIdentitiesNotReadError({ apiGroup, kind, name }, 'off');
        // CAPA's kinds have Keymaster's names, and so their plurals.
        if (!CAPA_IDENTITY_KINDS.includes(kind)) return undefined;
        const plural = PLURALS.get(kind)!;
        const object = await orUndefined<Record<string, unknown>>(
          custom.getClusterCustomObject({ group: CAPA_GROUP, version: CAPA_VERSION, plural, name }) as Promise<
            Record<string, unknown>
          >,
        );
        return object && capaIdentity(object, capa);
      }
      if (apiGroup !== GROUP) return undefined;
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
