import { CoreV1Api, CustomObjectsApi, type KubeConfig, type V1Namespace, type V1Secret } from '@kubernetes/client-node';
import {
  GROUP,
  IDENTITY_KINDS,
  VERSION,
  type AWSAccountBinding,
  type AWSCluster,
  type AWSClusterLedger,
  type AWSTagPolicy,
  type IdentityKind,
} from '@keymaster/api';
import { isNamespacedKind, providerOf, type IdentityObject, type IdentityStore } from '@keymaster/identity';
import { clusterNameOf } from '../awscluster/name-claim.js';
import type { Clock } from '../runtime/clock.js';
import { Informer, type CachedObject, type InformerOptions } from '../runtime/informer.js';
import { PAUSED_ANNOTATION } from '@keymaster/api';
import {
  CLUSTER_LABEL_CHARACTERS,
  namespaceAsRead,
  parkedAsRead,
  secretAsRead,
  tenantObjectAsRead,
  withoutUnread,
} from './cache-transforms.js';
import { fetchByList } from './fetch-by-list.js';
import { LedgerClaims } from './ledger-claims.js';
import { PLURAL, resourcePath } from './resources.js';

export interface CacheOptions {
  kubeConfig: KubeConfig;
  /** The controller's namespace: the only one whose Secrets are cached. */
  controllerNamespace: string;
  /** --watch-namespace: AWSClusters of this namespace only (default: all). */
  watchNamespace?: string;
  /** --watch-filter: only AWSClusters labelled cluster.x-k8s.io/watch-filter=<value>. */
  watchFilter?: string;
  resyncMs: number;
  /** AWSClusters served per namespace, the oldest first; the others are parked (`Informer`'s bound). */
  clustersPerNamespace: number;
  /** Told a namespace's count of parked AWSClusters whenever it changes. */
  clustersParked?: (namespace: string, parked: number) => void;
  clock?: Clock;
  onError: (what: string, error: unknown, retryInMs: number) => void;
}

/** Informer indexes (`Informer.index`): AWSClusters by clusterName, identities by the Secrets they read. */
const CLUSTER_NAME_INDEX = 'clusterName';
const SECRET_INDEX = 'secret';

/**
 * The informer caches the controller reads from: AWSClusters and their ledgers, every identity kind,
 * the tag policy, the account bindings, Secrets of the controller namespace and Namespaces (for
 * allowedNamespaces selectors), each object kept as far as the controller reads it (`cache-transforms.ts`).
 */
export class Caches {
  readonly clusters: Informer<AWSCluster>;
  readonly ledgers: Informer<AWSClusterLedger>;
  /** The ledgers' claims of cluster names, by account, region and name. */
  readonly ledgerClaims = new LedgerClaims();
  readonly identities: Record<IdentityKind, Informer<IdentityObject>>;
  readonly tagPolicies: Informer<AWSTagPolicy>;
  /** Named after their accounts: `get(accountId)`. */
  readonly accountBindings: Informer<AWSAccountBinding>;
  readonly secrets: Informer<V1Secret>;
  readonly namespaces: Informer<V1Namespace>;
  readonly #all: Informer<CachedObject>[];
  readonly #controllerNamespace: string;

  constructor(options: CacheOptions) {
    const { kubeConfig, controllerNamespace, watchNamespace, watchFilter, resyncMs, clock, onError } = options;
    const { clustersPerNamespace, clustersParked } = options;
    this.#controllerNamespace = controllerNamespace;
    const custom = kubeConfig.makeApiClient(CustomObjectsApi);
    const core = kubeConfig.makeApiClient(CoreV1Api);
    const informer = <T extends CachedObject>(
      what: string,
      path: string,
      list: () => Promise<unknown>,
      transform: (object: T) => T,
      labelSelector?: string,
      bound?: InformerOptions<T>['bound'],
    ) =>
      new Informer<T>({
        kubeConfig,
        path,
        list: list as () => Promise<{ items: T[] }>,
        transform,
        resyncMs,
        ...(labelSelector ? { labelSelector } : {}),
        ...(bound ? { bound } : {}),
        ...(clock ? { clock } : {}),
        onError: (error, retryInMs) => onError(what, error, retryInMs),
      });
    const clusterSelector = watchFilter ? `cluster.x-k8s.io/watch-filter=${watchFilter}` : undefined;
    const clusterList = {
      group: GROUP,
      version: VERSION,
      plural: PLURAL['AWSCluster']!,
      ...(clusterSelector ? { labelSelector: clusterSelector } : {}),
    };
    this.clusters = informer<AWSCluster>(
      'AWSClusters',
      resourcePath('AWSCluster', watchNamespace),
      () =>
        watchNamespace
          ? custom.listNamespacedCustomObject({ ...clusterList, namespace: watchNamespace })
          : custom.listClusterCustomObject(clusterList),
      tenantObjectAsRead([PAUSED_ANNOTATION], CLUSTER_LABEL_CHARACTERS),
      clusterSelector,
      {
        perNamespace: clustersPerNamespace,
        park: parkedAsRead,
        ...(clustersParked ? { parkedChanged: clustersParked } : {}),
        fetch: fetchByList<AWSCluster>(custom, clusterList),
      },
    );
    // Beside their AWSClusters: the same namespaces, and no label (the controller makes them).
    const ledgerList = { group: GROUP, version: VERSION, plural: PLURAL['AWSClusterLedger']! };
    this.ledgers = informer<AWSClusterLedger>(
      'AWSClusterLedgers',
      resourcePath('AWSClusterLedger', watchNamespace),
      () =>
        watchNamespace
          ? custom.listNamespacedCustomObject({ ...ledgerList, namespace: watchNamespace })
          : custom.listClusterCustomObject(ledgerList),
      withoutUnread,
    );
    const identity = (kind: IdentityKind) =>
      informer<IdentityObject>(
        kind,
        resourcePath(kind),
        () => custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL[kind]! }),
        withoutUnread,
      );
    this.identities = Object.fromEntries(IDENTITY_KINDS.map((kind) => [kind, identity(kind)])) as Record<
      IdentityKind,
      Informer<IdentityObject>
    >;
    this.tagPolicies = informer<AWSTagPolicy>(
      'AWSTagPolicies',
      resourcePath('AWSTagPolicy'),
      () => custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL['AWSTagPolicy']! }),
      withoutUnread,
    );
    this.accountBindings = informer<AWSAccountBinding>(
      'AWSAccountBindings',
      resourcePath('AWSAccountBinding'),
      () => custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL['AWSAccountBinding']! }),
      withoutUnread,
    );
    this.secrets = informer<V1Secret>(
      'Secrets',
      `/api/v1/namespaces/${controllerNamespace}/secrets`,
      () => core.listNamespacedSecret({ namespace: controllerNamespace }),
      secretAsRead,
    );
    this.namespaces = informer<V1Namespace>(
      'Namespaces',
      '/api/v1/namespaces',
      () => core.listNamespace(),
      namespaceAsRead,
    );
    // What reads these sees them current: indexes and claims are kept before any handler hears of a change.
    this.clusters.index(CLUSTER_NAME_INDEX, (cluster) => [clusterNameOf(cluster)]);
    for (const [kind, identities] of Object.entries(this.identities))
      identities.index(SECRET_INDEX, (identity) => providerOf(kind as IdentityKind).secrets(identity));
    this.ledgers.addHandlers({
      add: (ledger) => this.ledgerClaims.set(ledger),
      update: (ledger) => this.ledgerClaims.set(ledger),
      delete: (ledger) => this.ledgerClaims.remove(ledger),
    });
    this.#all = [
      this.clusters,
      this.ledgers,
      ...Object.values(this.identities),
      this.tagPolicies,
      this.accountBindings,
      this.secrets,
      this.namespaces,
    ] as Informer<CachedObject>[];
  }

  async start(): Promise<void> {
    await Promise.all(this.#all.map((informer) => informer.start()));
  }

  async stop(): Promise<void> {
    await Promise.all(this.#all.map((informer) => informer.stop()));
  }

  get synced(): boolean {
    return this.#all.every((informer) => informer.synced);
  }

  async waitForSync(): Promise<void> {
    await Promise.all(this.#all.map((informer) => informer.waitForSync()));
  }

  /** The cached AWSClusters of a clusterName (spec.clusterName, else metadata.name). */
  clustersNamed(clusterName: string): AWSCluster[] {
    return this.clusters.byIndex(CLUSTER_NAME_INDEX, clusterName);
  }

  /** The cached identities that read a Secret of the controller's namespace. */
  identitiesUsingSecret(name: string): IdentityObject[] {
    return Object.values(this.identities).flatMap((identities) => identities.byIndex(SECRET_INDEX, name));
  }

  /** `namespace`: a namespaced kind's (cluster-scoped kinds ignore it). */
  identity(kind: IdentityKind, name: string, namespace?: string): IdentityObject | undefined {
    return this.identities[kind].get(name, isNamespacedKind(kind) ? namespace : undefined);
  }

  /** Every cached identity, of every kind. */
  allIdentities(): IdentityObject[] {
    return IDENTITY_KINDS.flatMap((kind) => this.identities[kind].list());
  }

  /** The identity store the resolver reads, answered from these caches (no API call per resolve). */
  identityStore(): IdentityStore {
    return {
      getIdentity: (kind, name, namespace) => Promise.resolve(this.identity(kind, name, namespace)),
      listIdentities: () => Promise.resolve(this.allIdentities()),
      getSecret: (namespace, name) => {
        const secret = namespace === this.#controllerNamespace ? this.secrets.get(name, namespace) : undefined;
        return Promise.resolve(secret && { data: secret.data ?? {} });
      },
      getNamespace: (name) => {
        const namespace = this.namespaces.get(name);
        return Promise.resolve(namespace && { name, labels: namespace.metadata?.labels ?? {} });
      },
    };
  }
}
