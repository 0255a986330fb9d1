import {
  API_VERSION,
  type AWSCluster,
  type AWSClusterLedger,
  type AWSClusterLedgerSpec,
  type LedgerClaim,
} from '@keymaster/api';
import { ClusterMemory } from '@keymaster/tagging';
import { ledgerOwner } from '../kube/ledger-claims.js';
import type { LedgerStore } from '../kube/ledger-store.js';

/**
 * What a ledger may take, serialized: a fraction of etcd's 1.5 MiB, about 25,000 resources of one
 * memory. Past it, new memory is not recorded (Delete then removes less, never more).
 */
export const LEDGER_MAX_BYTES = 512 * 1024;

export interface ClusterLedgerDeps {
  /** Where ledgers are read and written (`keymaster plan` writes nowhere: its store only says it would). */
  store: Pick<LedgerStore, 'get' | 'write'>;
  now: () => Date;
  /** Whether the cluster may hold bookkeeping tags of releases up to 0.2.0 (created before the ledger CRD). */
  legacyEligible: boolean;
  /** Told when new memory could not be recorded for the size (the metric). */
  onFull: () => void;
  maxBytes?: number;
}

/** The claims and memory in a canonical order: two specs that mean the same are the same JSON. */
function canonical(spec: AWSClusterLedgerSpec): AWSClusterLedgerSpec {
  const claims = (spec.claims ?? [])
    .map(({ accountID, region, clusterName, since }) => ({ accountID, region, clusterName, since }))
    .sort((a, b) => (`${a.accountID}/${a.region}` < `${b.accountID}/${b.region}` ? -1 : 1));
  const memory = ClusterMemory.fromLedger(spec.memory).toLedger();
  return {
    ...(claims.length > 0 ? { claims } : {}),
    ...(memory.length > 0 ? { memory } : {}),
    ...(spec.legacyTagsConverted ? { legacyTagsConverted: spec.legacyTagsConverted } : {}),
  };
}

/**
 * One AWSCluster's ledger, as one tag work reads and writes it. A ledger whose controlling owner is
 * not this cluster (left by a cluster of the same name deleted without its dependents) holds nothing
 * for it: its content is replaced at the first write.
 */
export class ClusterLedger {
  #object: AWSClusterLedger | undefined;
  /** This cluster's content (empty when the ledger is another's, or absent), canonical. */
  #spec: AWSClusterLedgerSpec;

  constructor(
    private readonly cluster: AWSCluster,
    private readonly deps: ClusterLedgerDeps,
  ) {
    const { namespace = '', name = '' } = cluster.metadata;
    this.#object = deps.store.get(namespace, name);
    const own = this.#object && ledgerOwner(this.#object) === cluster.metadata.uid;
    this.#spec = own ? canonical(this.#object!.spec) : {};
  }

  /** What Keymaster wrote on the cluster's resources, as recorded. */
  get memory(): ClusterMemory {
    return ClusterMemory.fromLedger(this.#spec.memory);
  }

  /** Whether the cluster's legacy bookkeeping tags are still to be converted. */
  get convertLegacy(): boolean {
    return this.deps.legacyEligible && this.#spec.legacyTagsConverted === undefined;
  }

  /** Whether the ledger claims the cluster name in the account, in every one of the regions. */
  claimsAll(accountId: string, regions: readonly string[], clusterName: string): boolean {
    return regions.every((region) =>
      (this.#spec.claims ?? []).some(
        (claim) => claim.accountID === accountId && claim.region === region && claim.clusterName === clusterName,
      ),
    );
  }

  /**
   * Records that the cluster owns the name in the account and regions, before it writes there: its
   * claims elsewhere are dropped (it no longer acts there), those it holds keep their age.
   */
  async claim(accountId: string, regions: readonly string[], clusterName: string): Promise<void> {
    const since = this.deps.now().toISOString();
    const held = this.#spec.claims ?? [];
    const claims = regions.map(
      (region): LedgerClaim =>
        held.find(
          (claim) => claim.accountID === accountId && claim.region === region && claim.clusterName === clusterName,
        ) ?? {
          accountID: accountId,
          region,
          clusterName,
          since,
        },
    );
    await this.#write({ ...this.#spec, claims });
  }

  /**
   * Records what the cluster's resources remember now (what AWS accepted and read back), and that its
   * legacy tags are converted. Returns whether the memory was too large to record in full: then only
   * what was remembered before, less what was forgotten since, is kept.
   */
  async record(memory: ClusterMemory, legacyConverted: boolean): Promise<{ full: boolean }> {
    const converted =
      legacyConverted || !this.convertLegacy
        ? (this.#spec.legacyTagsConverted ?? this.deps.now().toISOString())
        : undefined;
    const next = canonical({ ...this.#spec, memory: memory.toLedger(), legacyTagsConverted: converted });
    const full = JSON.stringify(next).length > (this.deps.maxBytes ?? LEDGER_MAX_BYTES);
    if (full) {
      next.memory = memory.restrictTo(this.memory).toLedger();
      this.deps.onFull();
    }
    await this.#write(next);
    return { full };
  }

  /** One write, only when the content changed. */
  async #write(spec: AWSClusterLedgerSpec): Promise<void> {
    const next = canonical(spec);
    if (
      this.#object &&
      JSON.stringify(next) === JSON.stringify(this.#spec) &&
      ledgerOwner(this.#object) === this.cluster.metadata.uid
    )
      return;
    const { namespace = '', name = '', uid = '' } = this.cluster.metadata;
    const existing = this.#object?.metadata;
    this.#object = await this.deps.store.write({
      apiVersion: API_VERSION,
      kind: 'AWSClusterLedger',
      metadata: {
        name,
        namespace,
        ...(existing?.resourceVersion ? { resourceVersion: existing.resourceVersion } : {}),
        ...(existing?.labels ? { labels: existing.labels } : {}),
        ...(existing?.annotations ? { annotations: existing.annotations } : {}),
        // No blockOwnerDeletion: that needs the right to set finalizers on the AWSCluster.
        ownerReferences: [{ apiVersion: API_VERSION, kind: 'AWSCluster', name, uid, controller: true }],
      },
      spec: next,
    });
    this.#spec = next;
  }
}
