import type { Grant } from './rate-limiter.js';

/** A token already taken, handed to the first request that asks; the later ones get none and take their own. */
export function firstGrant(grant: Grant | undefined): () => Grant | undefined {
  let taken = grant;
  return () => {
    const first = taken;
    taken = undefined;
    return first;
  };
}
