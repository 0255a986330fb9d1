/** Inspections running at once, in all: each plans several clusters against AWS. */
const MAX_RUNNING = 4;

/**
 * One turn per key (a namespace, or '' for every namespace) at a time, and a few in all: a caller that
 * asks again and again gets refused, not queued, so that it holds no memory and no AWS budget of others.
 */
export class Turns {
  readonly #running = new Set<string>();

  take(key: string): boolean {
    if (this.#running.has(key) || this.#running.size >= MAX_RUNNING) return false;
    this.#running.add(key);
    return true;
  }

  give(key: string): void {
    this.#running.delete(key);
  }
}
