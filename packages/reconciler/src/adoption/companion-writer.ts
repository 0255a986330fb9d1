import { CustomObjectsApi, PatchStrategy, setHeaderOptions, type KubeConfig } from '@kubernetes/client-node';
import { GROUP, PAUSED_ANNOTATION, VERSION, type AWSCluster } from '@keymaster/api';
import { PLURAL } from '../kube/resources.js';

/** The writes the adoption controller makes to companions; a test's fake records them. */
export interface CompanionWrites {
  create(companion: AWSCluster): Promise<unknown>;
  /** Makes `current` (as cached) what `desired` says: spec, labels, pause; guarded by its resourceVersion. */
  update(current: AWSCluster, desired: AWSCluster): Promise<unknown>;
  /** Deletes this object, not a newer one of its name (a uid precondition). */
  delete(companion: AWSCluster): Promise<unknown>;
}

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The JSON merge patch (RFC 7386) that turns `current` into `desired`: what is gone is set to null. */
export function mergePatchOf(current: Json, desired: Json): Json {
  const patch: Json = {};
  for (const key of Object.keys(current)) if (!(key in desired)) patch[key] = null;
  for (const [key, value] of Object.entries(desired)) {
    const was = current[key];
    patch[key] = isObject(was) && isObject(value) ? mergePatchOf(was, value) : value;
  }
  return patch;
}

export class CompanionWriter implements CompanionWrites {
  readonly #custom: CustomObjectsApi;

  constructor(kubeConfig: KubeConfig) {
    this.#custom = kubeConfig.makeApiClient(CustomObjectsApi);
  }

  #target(namespace = '') {
    return { group: GROUP, version: VERSION, plural: PLURAL['AWSCluster']!, namespace };
  }

  create(companion: AWSCluster): Promise<unknown> {
    return this.#custom.createNamespacedCustomObject({
      ...this.#target(companion.metadata.namespace),
      body: companion,
    });
  }

  update(current: AWSCluster, desired: AWSCluster): Promise<unknown> {
    const { name = '', namespace, resourceVersion } = current.metadata;
    const body = {
      metadata: {
        resourceVersion,
        labels: mergePatchOf(current.metadata.labels ?? {}, desired.metadata.labels ?? {}),
        annotations: { [PAUSED_ANNOTATION]: desired.metadata.annotations?.[PAUSED_ANNOTATION] ?? null },
      },
      spec: mergePatchOf(current.spec as unknown as Json, desired.spec as unknown as Json),
    };
    return this.#custom.patchNamespacedCustomObject({ ...this.#target(namespace), name, body }, mergePatch);
  }

  delete(companion: AWSCluster): Promise<unknown> {
    const { name = '', namespace, uid } = companion.metadata;
    return this.#custom.deleteNamespacedCustomObject({
      ...this.#target(namespace),
      name,
      body: { preconditions: { uid } },
    });
  }
}
