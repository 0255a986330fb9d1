import type { AWSClusterLedger } from '@keymaster/api';
import type { LedgerStore } from '../../src/kube/ledger-store.js';

/** The clusters' ledgers, in memory: a write is read back at once. */
export class FakeLedgers implements Pick<LedgerStore, 'get' | 'write'> {
  readonly #ledgers = new Map<string, AWSClusterLedger>();

  get(namespace: string, name: string): AWSClusterLedger | undefined {
    return this.#ledgers.get(`${namespace}/${name}`);
  }

  write(ledger: AWSClusterLedger): Promise<AWSClusterLedger> {
    this.#ledgers.set(`${ledger.metadata.namespace ?? ''}/${ledger.metadata.name ?? ''}`, ledger);
    return Promise.resolve(ledger);
  }
}
