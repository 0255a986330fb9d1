/**
 * Work of each scope (one credential set in one region, `SessionBatchers.scope`) on its way to a
 * call that later work may join: clusters on their way to their writes (from the start of their
 * reconcile until their writes are submitted), which a write waits for (`SessionBatchers.joined`),
 * so that the clusters an edit runs together share its call; and writes on their way to their
 * answers, which a read-back waits for (`SessionBatchers.answered`). Only work already running
 * counts: a cluster still queued behind it cannot start while it waits.
 */
export class Arrivals {
  readonly #coming = new Map<string, number>();
  readonly #waiting = new Map<string, (() => void)[]>();

  /**
   * One piece of work on its way in `scopes`. Call the function returned once it has arrived (a
   * cluster's writes are submitted, or it ends without any; a write is answered); calls after the
   * first do nothing.
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

  /** Whether work is on its way in `scope`. */
  pending(scope: string): boolean {
    return this.#coming.has(scope);
  }

  /** Resolves once no work is on its way in `scope`. */
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
    // On the next turn of the event loop: the last cluster submits its writes after arriving (a write's
    // cluster reads back after its answer), and they join the calls held for it before those take
    // their token.
    if (waiting.length > 0) setImmediate(() => waiting.forEach((resolve) => resolve()));
  }
}
