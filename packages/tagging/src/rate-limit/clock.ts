/** The time the rate limiters and retries read and wait on; tests pass a virtual one. */
export interface TaggingClock {
  /** Milliseconds since a fixed point (the epoch, for the system clock). */
  now(): number;
  /** Resolves once `ms` milliseconds have passed on this clock. */
  sleep(ms: number): Promise<void>;
}

export const systemClock: TaggingClock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};
