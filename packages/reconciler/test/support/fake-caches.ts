import type { V1Namespace, V1Secret } from '@kubernetes/client-node';
import type { AWSAccountBinding, AWSCluster, AWSTagPolicy, IdentityKind } from '@keymaster/api';
import { identityId, type IdentityObject } from '@keymaster/identity';
import type { AWSClusterCaches } from '../../src/awscluster/reconciler.js';
import type { IdentityCaches } from '../../src/awsclusteridentity/reconciler.js';
import { LedgerClaims } from '../../src/kube/ledger-claims.js';
import { FakeInformer } from './fake-informer.js';

/** The informer caches as the reconcilers read them, filled by the test. */
export class FakeCaches implements AWSClusterCaches, IdentityCaches {
  readonly clusters = new FakeInformer<AWSCluster>();
  readonly ledgerClaims = new LedgerClaims();
  readonly accountBindings = new FakeInformer<AWSAccountBinding>();
  readonly tagPolicies = new FakeInformer<AWSTagPolicy>();
  readonly secrets = new FakeInformer<V1Secret>();
  readonly namespaces = new FakeInformer<V1Namespace>();
  readonly #identities = new Map<string, IdentityObject>();

  /** Puts identities in the cache, each under its kind. */
  withIdentities(...identities: IdentityObject[]): this {
    for (const { kind, metadata, ...rest } of identities)
      this.#identities.set(identityId(kind, metadata.name ?? '', metadata.namespace), {
        kind,
        metadata,
        ...rest,
      } as IdentityObject);
    return this;
  }

  identity(kind: IdentityKind, name: string, namespace?: string): IdentityObject | undefined {
    return this.#identities.get(identityId(kind, name, namespace));
  }

  allIdentities(): IdentityObject[] {
    return [...this.#identities.values()];
  }

  clustersNamed(clusterName: string): AWSCluster[] {
    return this.clusters
      .list()
      .filter((cluster) => (cluster.spec.clusterName ?? cluster.metadata.name) === clusterName);
  }
}
