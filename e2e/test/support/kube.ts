import {
  CoreV1Api,
  KubeConfig,
  KubernetesObjectApi,
  PatchStrategy,
  type CoreV1Event,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { expect } from 'chai';
import type { AWSCluster, Condition, IdentityKind } from '@keymaster/api';
import { eventually, type EventuallyOptions } from './eventually.js';
import type { KubeObject } from './objects.js';

type Header = { apiVersion?: string; kind?: string; metadata?: { name?: string; namespace?: string } };

/** Just what names an object: its kind and name (no resourceVersion: the test's writes are unconditional). */
const header = ({ apiVersion = '', kind = '', metadata: { name = '', namespace } = {} }: Header) => ({
  apiVersion,
  kind,
  metadata: { name, ...(namespace ? { namespace } : {}) },
});

/** What names an AWSCluster, to read or patch it. */
export const clusterKey = (namespace: string, name: string) => ({
  apiVersion: 'infrastructure.keymaster.dev/v1beta1',
  kind: 'AWSCluster',
  metadata: { name, namespace },
});

/** The test's side of the management cluster: what a platform engineer does with kubectl, over HTTP. */
export class Kube {
  readonly #objects: KubernetesObjectApi;
  readonly #core: CoreV1Api;

  constructor(kubeConfigYaml: string) {
    const config = new KubeConfig();
    config.loadFromString(kubeConfigYaml);
    this.#objects = KubernetesObjectApi.makeApiClient(config);
    this.#core = config.makeApiClient(CoreV1Api);
  }

  /** Creates the objects in order (namespaces before what lives in them); returns them as created. */
  async create(...objects: KubeObject[]): Promise<KubernetesObject[]> {
    const created = [];
    // Keymaster's types keep timestamps as the strings the API sends; client-node's say Date.
    for (const object of objects) created.push(await this.#objects.create(object as KubernetesObject));
    return created;
  }

  /** A JSON merge patch (`null` removes a field), as `kubectl patch --type merge`. */
  async patch(object: Header, patch: object): Promise<void> {
    const { metadata, ...named } = header(object);
    await this.#objects.patch(
      { ...patch, ...named, metadata: { ...(patch as { metadata?: object }).metadata, ...metadata } },
      undefined,
      undefined,
      undefined,
      undefined,
      PatchStrategy.MergePatch,
    );
  }

  /** A PUT of the whole object, as `kubectl replace`. */
  async replace(object: KubeObject): Promise<void> {
    await this.#objects.replace(object as KubernetesObject);
  }

  async read<T>(object: Header): Promise<T> {
    return (await this.#objects.read(header(object))) as T;
  }

  async delete(object: Header): Promise<void> {
    await this.#objects.delete(header(object));
  }

  async list<T>(apiVersion: string, kind: string, namespace?: string): Promise<T[]> {
    return (await this.#objects.list(apiVersion, kind, namespace)).items as T[];
  }

  async cluster(namespace: string, name: string): Promise<AWSCluster> {
    return this.read<AWSCluster>(clusterKey(namespace, name));
  }

  async clusters(): Promise<AWSCluster[]> {
    return this.list<AWSCluster>('infrastructure.keymaster.dev/v1beta1', 'AWSCluster');
  }

  /** Waits until `count` AWSClusters are Ready. */
  async untilReady(count: number, options?: EventuallyOptions): Promise<void> {
    await eventually(async () => expect((await this.clusters()).filter(isReady)).to.have.length(count), options);
  }

  async identity<T>(kind: IdentityKind, name: string): Promise<T> {
    return this.read<T>({ apiVersion: 'infrastructure.keymaster.dev/v1beta1', kind, metadata: { name } });
  }

  /** core/v1 Events about one object. */
  async events(namespace: string, name: string): Promise<CoreV1Event[]> {
    const list = await this.#core.listNamespacedEvent({ namespace, fieldSelector: `involvedObject.name=${name}` });
    return list.items;
  }
}

export const condition = (cluster: { status?: { conditions?: Condition[] } }, type: string): Condition | undefined =>
  cluster.status?.conditions?.find((item) => item.type === type);

export const isReady = (cluster: AWSCluster): boolean => condition(cluster, 'Ready')?.status === 'True';

/** Waits until the cluster's condition `type` has `expected` (status and reason); returns the cluster then. */
export async function untilCondition(
  kube: Kube,
  namespace: string,
  name: string,
  type: string,
  expected: Pick<Condition, 'status' | 'reason'>,
): Promise<AWSCluster> {
  return eventually(async () => {
    const cluster = await kube.cluster(namespace, name);
    expect(condition(cluster, type), `${namespace}/${name} ${type}`).to.include(expected);
    return cluster;
  });
}
