import { setTimeout as sleep } from 'node:timers/promises';

export interface EventuallyOptions {
  /** Give up after this long; the last failure is thrown. Generous: a deadline, not a speed claim. */
  timeoutMs?: number;
  /** Pause between attempts. */
  intervalMs?: number;
}

/**
 * Runs `check` until it returns without throwing (an assertion that holds), and returns what it
 * returned. The controller is eventually consistent: tests wait for a state with this, never with a
 * fixed sleep, and never assert how long it took.
 */
export async function eventually<T>(
  check: () => T | Promise<T>,
  { timeoutMs = 60_000, intervalMs = 100 }: EventuallyOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() >= deadline) {
        if (error instanceof Error) error.message = `still failing after ${timeoutMs} ms: ${error.message}`;
        throw error;
      }
    }
    await sleep(intervalMs);
  }
}
