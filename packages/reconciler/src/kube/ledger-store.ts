import type { AWSClusterLedger } from '@keymaster/api';
import type { Informer } from '../runtime/informer.js';
import type { KubeWriter } from './writer.js';
import { objectKey } from '../runtime/object-key.js';

const keyOf = ({ metadata }: AWSClusterLedger) => objectKey(metadata);

/**
 * The AWSClusterLedgers as the controller reads and writes them: the informer's cache, and what this
 * process wrote that the cache has not shown yet. A cluster's next tag work may start before the watch
 * brings the write of the last one; read from the cache alone, it would plan on the older memory and,
 * writing, forget what the last one recorded. A ledger is all spec, so its generation orders its versions.
 */
export class LedgerStore {
  readonly #written = new Map<string, AWSClusterLedger>();

  constructor(
    private readonly cache: Informer<AWSClusterLedger>,
    private readonly writer: KubeWriter,
  ) {}

  /** The newest version of the ledger `namespace/name` this process knows. */
  get(namespace: string, name: string): AWSClusterLedger | undefined {
    const key = objectKey({ namespace, name });
    const cached = this.cache.get(name, namespace);
    const written = this.#written.get(key);
    if (written === undefined) return cached;
    const sameObject = cached !== undefined && cached.metadata.uid === written.metadata.uid;
    if (sameObject && (cached.metadata.generation ?? 0) >= (written.metadata.generation ?? 0)) {
      this.#written.delete(key);
      return cached;
    }
    // Not in the cache yet (created), or older there (replaced): ours is the newer.
    return sameObject || cached === undefined ? written : cached;
  }

  /** Creates the ledger, or replaces it (it carries the resourceVersion it was read at). */
  async write(ledger: AWSClusterLedger): Promise<AWSClusterLedger> {
    const written = await this.writer.writeLedger(ledger);
    this.#written.set(keyOf(written), written);
    return written;
  }

  /** The informer saw the ledger deleted: nothing of it is current any more. */
  deleted(ledger: AWSClusterLedger): void {
    this.#written.delete(keyOf(ledger));
  }
}
