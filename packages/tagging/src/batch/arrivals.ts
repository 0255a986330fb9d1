/**
 * The clusters of each scope (one credential set in one region, `SessionBatchers.scope`) on their way
 * to their writes: from the start of their reconcile until their writes are submitted. A write waits
 * for them (`SessionBatchers.joined`) so that the clusters an edit runs together share its call.
 * Only clusters already running count: one still queued behind them cannot start while they wait.
 */
export class Arrivals {
  readonly #coming = new Map<string, number>();
  readonly #waiting = new Map<string, (() => void)[]>();

  /**
   * One cluster on its way in `scopes`. Call the function returned once its writes are submitted (or
   * it ends without any); calls after the first do nothing.
   */
  coming(scopes: readonly string[]): () => void {
    const own = [...new Set(scopes)];
    for (const scope of own) this.#coming.set(scope, (this.#coming.get(scope) ?? 0) + 1);
    let arrived = false;
    return () => {
      if (arrived) return;
      arrived = true;
      for (const scope of own) this.#arrived(scope);
    };
  }

  /** Whether a cluster is on its way in `scope`. */
  pending(scope: string): boolean {
    return this.#coming.has(scope);
  }

  /** Resolves once no cluster is on its way in `scope`. */
  none(scope: string): Promise<void> {
    if (!this.pending(scope)) return Promise.resolve();
    return new Promise((resolve) => {
      const waiting = this.#waiting.get(scope) ?? [];
      waiting.push(resolve);
      this.#waiting.set(scope, waiting);
    });
  }

  #arrived(scope: string): void {
    const left = this.#coming.get(scope)! - 1;
    if (left > 0) {
      this.#coming.set(scope, left);
      return;
    }
    this.#coming.delete(scope);
    const waiting = this.#waiting.get(scope) ?? [];
    this.#waiting.delete(scope);
    // On the next turn of the event loop: the last cluster submits its writes after arriving, and they
    // join the writes held for it before those take their token.
    if (waiting.length > 0) setImmediate(() => waiting.forEach((resolve) => resolve()));
  }
}
