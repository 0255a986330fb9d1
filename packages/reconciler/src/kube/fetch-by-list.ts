import type { CustomObjectsApi } from '@kubernetes/client-node';

/** A custom resource's list request: group, version, plural, and the informer's label selector if any. */
export interface CustomList {
  group: string;
  version: string;
  plural: string;
  labelSelector?: string;
}

/**
 * Reads one object as the informer reads them, with a list narrowed to its name: the controller may
 * list and watch tenants' kinds, but has no get on them.
 */
export const fetchByList =
  <T>(custom: CustomObjectsApi, list: CustomList) =>
  async (name: string, namespace: string): Promise<T | undefined> => {
    const found = (await custom.listNamespacedCustomObject({
      ...list,
      namespace,
      fieldSelector: `metadata.name=${name}`,
    })) as { items: T[] };
    return found.items[0];
  };
