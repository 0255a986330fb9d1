import type { TaggingClock } from '../../src/index.js';

/** A clock whose sleeps return at once and move its time on: no real waiting in tests. */
export interface VirtualClock extends TaggingClock {
  /** Every sleep asked for, in milliseconds. */
  readonly sleeps: number[];
  advance(ms: number): void;
}

export function virtualClock(start = 0): VirtualClock {
  let now = start;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    sleep: (ms) => {
      sleeps.push(ms);
      now += ms;
      return Promise.resolve();
    },
    advance: (ms) => {
      now += ms;
    },
  };
}
