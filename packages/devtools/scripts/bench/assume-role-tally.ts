/** The STS phase's count of AssumeRole per role, read from the aws-emulator's call log as it comes. */
import { setTimeout as sleep } from 'node:timers/promises';
import { callsAfter, type EmulatorApi } from './emulator-api.js';

/** The aws-emulator keeps the latest 1,000 calls: the STS phase's AssumeRoles are counted per role from them. */
const RECENT_CALLS_KEPT = 1000;
/** The call log is read once this many calls are new: well under the 1,000 it keeps, so none falls out. */
const READ_EVERY = 300;

/**
 * AssumeRole per role from the aws-emulator's call log, which keeps only the latest 1,000 calls: read
 * while the calls come (a step at 2,000 roles makes thousands), every half second, so that none is
 * missed. Only the counts are kept, one per role.
 */
export class AssumeRoleTally {
  readonly byRole: Record<string, number> = {};
  lifetimeSeconds = 0;
  /** Whether every call was read: false when more came between two reads than the log keeps. */
  complete = true;
  #seen = 0;
  #following: Promise<void> | undefined;
  #stopped = false;

  constructor(private readonly api: Pick<EmulatorApi, 'calls'>) {}

  follow(): void {
    this.#following = (async () => {
      while (!this.#stopped) {
        // A read that fails to connect (the emulators busy past a socket's life) is made again at the
        // next tick: the log still holds the calls, or says it does not (`complete`).
        await this.#read(READ_EVERY).catch((error: unknown) => {
          if (!(error instanceof TypeError)) throw error;
        });
        await sleep(500);
      }
    })();
    // Rethrown by stop().
    this.#following.catch(() => undefined);
  }

  /** Stops following and reads the last calls. */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#following;
    await this.#read(1);
  }

  /** Reads the calls made since the last read, when at least `least` are new. */
  async #read(least: number): Promise<void> {
    const fresh = (await this.api.calls()).total - this.#seen;
    if (fresh < least) return;
    // All it keeps: more calls come between the count and this read.
    const summary = await this.api.calls(RECENT_CALLS_KEPT);
    const calls = callsAfter(summary, this.#seen);
    if (calls === undefined) this.complete = false;
    this.#seen = summary.total;
    for (const { action, outcome, detail } of calls ?? [])
      if (action === 'sts:AssumeRole' && outcome === 'success') {
        const role = typeof detail?.['roleArn'] === 'string' ? detail['roleArn'] : '';
        this.byRole[role] = (this.byRole[role] ?? 0) + 1;
        this.lifetimeSeconds = Number(detail?.['durationSeconds'] ?? 3600);
      }
  }
}
