import { ControlRequestError } from './errors.js';

/**
 * The emulator's clock: the wall clock plus an offset that only moves forward. It decides credential
 * lifetimes (session expiry, `Expiration`) and throttling refills. Signature times are checked against
 * the wall clock instead (see sigv4/verify.ts), so real clients keep signing with their own time after
 * a test has moved this clock on.
 */
export interface Clock {
  /** The emulator's current time. */
  now(): Date;
  /** The emulator's current time in milliseconds since the epoch. */
  nowMs(): number;
  /** Moves the emulator's time forward and returns the new time. */
  advance(seconds: number): Date;
  /** How far the emulator's time is ahead of the wall clock, in seconds. */
  offsetSeconds(): number;
}

export function createClock(wallClock: () => number = Date.now): Clock {
  let offsetMs = 0;
  return {
    now: () => new Date(wallClock() + offsetMs),
    nowMs: () => wallClock() + offsetMs,
    advance(seconds) {
      if (!Number.isFinite(seconds) || seconds < 0) {
        throw new ControlRequestError(
          400,
          `the clock moves forward only: got ${String(seconds)} seconds`,
          'Pass a number >= 0.',
        );
      }
      offsetMs += seconds * 1000;
      return new Date(wallClock() + offsetMs);
    },
    offsetSeconds: () => offsetMs / 1000,
  };
}
