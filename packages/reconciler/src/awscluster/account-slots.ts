/**
 * At most `perKey` tag reconciles at once per AWS account and region. Tagging is rate limited per
 * account and region, so more workers on one account only wait on its limiter while other accounts'
 * budgets go unused; a cluster that finds its account busy is requeued shortly and the worker moves on.
 */
export class AccountSlots {
  readonly #busy = new Map<string, number>();

  constructor(private readonly perKey: number) {}

  tryEnter(key: string): boolean {
    const busy = this.#busy.get(key) ?? 0;
    if (busy >= this.perKey) return false;
    this.#busy.set(key, busy + 1);
    return true;
  }

  leave(key: string): void {
    const busy = (this.#busy.get(key) ?? 1) - 1;
    if (busy <= 0) this.#busy.delete(key);
    else this.#busy.set(key, busy);
  }
}
