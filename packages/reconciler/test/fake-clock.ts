import type { Clock } from '../src/runtime/clock.js';

/** A clock that moves only when told to, firing due timers in order. */
export class FakeClock implements Clock {
  #now = 0;
  #timers = new Map<number, { at: number; callback: () => void }>();
  #next = 0;

  now(): number {
    return this.#now;
  }

  setTimeout(callback: () => void, delayMs: number): unknown {
    this.#next += 1;
    this.#timers.set(this.#next, { at: this.#now + delayMs, callback });
    return this.#next;
  }

  clearTimeout(handle: unknown): void {
    this.#timers.delete(handle as number);
  }

  get pendingTimers(): number {
    return this.#timers.size;
  }

  /** Moves time forward, firing every timer that falls due on the way. */
  advance(ms: number): void {
    const until = this.#now + ms;
    for (;;) {
      const due = [...this.#timers.entries()]
        .filter(([, timer]) => timer.at <= until)
        .sort(([, a], [, b]) => a.at - b.at)[0];
      if (!due) break;
      this.#timers.delete(due[0]);
      this.#now = due[1].at;
      due[1].callback();
    }
    this.#now = until;
  }
}
