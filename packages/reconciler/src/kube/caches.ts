import {
  ApiException,
  CoreV1Api,
  CustomObjectsApi,
  type KubeConfig,
  type V1Namespace,
  type V1Secret,
} from '@kubernetes/client-node';
import {
  CAPA_GROUP,
  CAPA_IDENTITY_KINDS,
  GROUP,
  IDENTITY_KINDS,
  VERSION,
  type AWSAccountBinding,
  type AWSCluster,
  type AWSClusterLedger,
  type AWSTagPolicy,
  type IdentityKind,
} from '@keymaster/api';
import {
  CAPA_VERSION,
  CapaIdentitiesNotReadError,
  capaIdentity,
  isNamespacedKind,
  providerOf,
  type CapaNotRead,
  type CapaOptions,
  type IdentityObject,
  type IdentityStore,
} from '@keymaster/identity';
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
  /**
   * --adopt-cluster-api's: CAPA's identities and the Secrets of CAPA's namespace are cached too, when
   * CAPA's CRDs exist at start; `crdsMissing` is told once when they do not.
   */
  capa?: { options: CapaOptions; crdsMissing: (message: string) => void };
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
  /** CAPA's identities, adapted (`capaIdentity`), by kind; none unless --adopt-cluster-api. */
  readonly capaIdentities: Partial<Record<IdentityKind, Informer<IdentityObject>>> = {};
  /** Secrets of CAPA's namespace (CAPA's static identities' keys), when it is not the controller's. */
  readonly capaSecrets: Informer<V1Secret> | undefined;
  /** Why CAPA's identities are not read, or undefined once they are. */
  #capaNotRead: CapaNotRead | undefined = 'off';
  readonly #capa: CacheOptions['capa'];
  readonly #custom: CustomObjectsApi;
  readonly #all: Informer<CachedObject>[];
  readonly #controllerNamespace: string;

  constructor(options: CacheOptions) {
    const { kubeConfig, controllerNamespace, watchNamespace, watchFilter, resyncMs, clock, onError } = options;
    const { clustersPerNamespace, clustersParked } = options;
    this.#controllerNamespace = controllerNamespace;
    const custom = kubeConfig.makeApiClient(CustomObjectsApi);
    const core = kubeConfig.makeApiClient(CoreV1Api);
    this.#custom = custom;
    this.#capa = options.capa;
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
    const capa = options.capa?.options;
    if (capa) {
      for (const kind of CAPA_IDENTITY_KINDS as IdentityKind[]) {
        // CAPA's kinds have Keymaster's names, and so their plurals.
        const plural = PLURAL[kind]!;
        this.capaIdentities[kind] = informer<IdentityObject>(
          `${kind}.${CAPA_GROUP}`,
          `/apis/${CAPA_GROUP}/${CAPA_VERSION}/${plural}`,
          () => custom.listClusterCustomObject({ group: CAPA_GROUP, version: CAPA_VERSION, plural }),
          // Read only: kept in Keymaster's shape, CAPA's apiVersion and fields (`capaIdentity`).
          (object) => capaIdentity({ ...withoutUnread(object), kind }, capa)!,
        );
      }
      if (capa.namespace !== controllerNamespace)
        this.capaSecrets = informer<V1Secret>(
          `Secrets of ${capa.namespace}`,
          `/api/v1/namespaces/${capa.namespace}/secrets`,
          () => core.listNamespacedSecret({ namespace: capa.namespace }),
          secretAsRead,
        );
    }
    // What reads these sees them current: indexes and claims are kept before any handler hears of a change.
    this.clusters.index(CLUSTER_NAME_INDEX, (cluster) => [clusterNameOf(cluster)]);
    for (const [kind, identities] of [...Object.entries(this.identities), ...Object.entries(this.capaIdentities)])
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
    if (this.#capa) await this.#startCapa(this.#capa.crdsMissing);
    await Promise.all(this.#all.map((informer) => informer.start()));
  }

  /**
   * CAPA's informers join the others when CAPA's three identity kinds are served: otherwise their
   * watches would fail for ever and the caches never sync. Absent CRDs are told once, and AWSClusters
   * naming CAPA's identities are refused saying so (CapaIdentitiesNotReadError).
   */
  async #startCapa(crdsMissing: (message: string) => void): Promise<void> {
    const served = await Promise.all(
      Object.keys(this.capaIdentities).map((kind) =>
        this.#custom
          .listClusterCustomObject({ group: CAPA_GROUP, version: CAPA_VERSION, plural: PLURAL[kind]!, limit: 1 })
          .then(
            () => true,
            (error: unknown) => {
              if (error instanceof ApiException && error.code === 404) return false;
              throw error;
            },
          ),
      ),
    );
    if (served.includes(false)) {
      this.#capaNotRead = 'crds-missing';
      crdsMissing(
        `CAPA's identity CRDs (${CAPA_GROUP}/${CAPA_VERSION}: ${CAPA_IDENTITY_KINDS.join(', ')}) are not installed: ` +
          "AWSClusters naming CAPA's identities are refused. Install CAPA (or its CRDs), then restart Keymaster",
      );
      return;
    }
    this.#capaNotRead = undefined;
    this.#all.push(
      ...(Object.values(this.capaIdentities) as unknown as Informer<CachedObject>[]),
      ...(this.capaSecrets ? [this.capaSecrets as Informer<CachedObject>] : []),
    );
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

  /** The cached identities that read a Secret of the controller's namespace (CAPA's: of CAPA's). */
  identitiesUsingSecret(name: string): IdentityObject[] {
    return [...Object.values(this.identities), ...Object.values(this.capaIdentities)].flatMap((identities) =>
      identities.byIndex(SECRET_INDEX, name),
    );
  }

  /**
   * `namespace`: a namespaced kind's (cluster-scoped kinds ignore it); `apiGroup` CAPA's: CAPA's
   * identity (CapaIdentitiesNotReadError when they are not read).
   */
  identity(kind: IdentityKind, name: string, namespace?: string, apiGroup = GROUP): IdentityObject | undefined {
    if (apiGroup === GROUP) return this.identities[kind].get(name, isNamespacedKind(kind) ? namespace : undefined);
    if (apiGroup !== CAPA_GROUP) return undefined;
    if (this.#capaNotRead) throw new CapaIdentitiesNotReadError({ apiGroup, kind, name }, this.#capaNotRead);
    return this.capaIdentities[kind]?.get(name);
  }

  /** Every cached identity, of every kind. */
  allIdentities(): IdentityObject[] {
    return IDENTITY_KINDS.flatMap((kind) => this.identities[kind].list());
  }

  /** The identity store the resolver reads, answered from these caches (no API call per resolve). */
  identityStore(): IdentityStore {
    return {
      // A refusal to read CAPA's identities rejects: the chain walk tells it on the cluster.
      getIdentity: (kind, name, namespace, apiGroup) =>
        new Promise((resolve) => resolve(this.identity(kind, name, namespace, apiGroup))),
      listIdentities: () => Promise.resolve(this.allIdentities()),
      getSecret: (namespace, name) => {
        const secrets =
          namespace === this.#controllerNamespace
            ? this.secrets
            : namespace === this.#capa?.options.namespace
              ? this.capaSecrets
              : undefined;
        const secret = secrets?.get(name, namespace);
        return Promise.resolve(secret && { data: secret.data ?? {} });
      },
      getNamespace: (name) => {
        const namespace = this.namespaces.get(name);
        return Promise.resolve(namespace && { name, labels: namespace.metadata?.labels ?? {} });
      },
    };
  }
}
