import type { AWSClusterLedger } from '@keymaster/api';
import { objectKey } from '../runtime/object-key.js';

/** One ledger's claim on a cluster name in an account and region. */
export interface LedgerClaimRef {
  /** The ledger's namespace/name: its AWSCluster's. */
  key: string;
  /** The UID of the AWSCluster that controls the ledger (its controlling ownerReference), if any. */
  owner: string | undefined;
  since: string;
}

const claimKey = (accountId: string, region: string, clusterName: string) =>
  JSON.stringify([accountId, region, clusterName]);

/** The UID of the ledger's controlling AWSCluster. */
export const ledgerOwner = (ledger: AWSClusterLedger): string | undefined =>
  ledger.metadata.ownerReferences?.find(({ kind, controller }) => kind === 'AWSCluster' && controller === true)?.uid;

/**
 * The ledgers' claims, by account, region and cluster name, kept from the ledger informer's events:
 * who owns a name is read here, not in a scan of every ledger per reconcile.
 */
export class LedgerClaims {
  readonly #byName = new Map<string, Map<string, LedgerClaimRef>>();
  readonly #filed = new Map<string, string[]>();

  /** Files an added or changed ledger's claims (and forgets those it dropped). */
  set(ledger: AWSClusterLedger): void {
    this.remove(ledger);
    const key = objectKey(ledger.metadata);
    const owner = ledgerOwner(ledger);
    const filed: string[] = [];
    for (const { accountID, region, clusterName, since } of ledger.spec.claims ?? []) {
      const name = claimKey(accountID, region, clusterName);
      let claims = this.#byName.get(name);
      if (!claims) this.#byName.set(name, (claims = new Map<string, LedgerClaimRef>()));
      claims.set(key, { key, owner, since });
      filed.push(name);
    }
    if (filed.length > 0) this.#filed.set(key, filed);
  }

  remove(ledger: AWSClusterLedger): void {
    const key = objectKey(ledger.metadata);
    for (const name of this.#filed.get(key) ?? []) {
      const claims = this.#byName.get(name)!;
      claims.delete(key);
      if (claims.size === 0) this.#byName.delete(name);
    }
    this.#filed.delete(key);
  }

  /** The ledgers that claim the cluster name in the account and region. */
  claiming(accountId: string, region: string, clusterName: string): LedgerClaimRef[] {
    return [...(this.#byName.get(claimKey(accountId, region, clusterName))?.values() ?? [])];
  }
}
