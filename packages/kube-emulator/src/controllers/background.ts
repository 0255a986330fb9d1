import { ApiError } from '../api/status.js';

/**
 * Runs controller work after the current request, as the apiserver's controllers act asynchronously.
 * NotFound and Conflict mean another actor got there first: the work is moot, not failed. Anything
 * else is reported and the emulator keeps serving.
 */
export function later(work: () => void): void {
  setImmediate(() => {
    try {
      work();
    } catch (error) {
      if (error instanceof ApiError && (error.code === 404 || error.code === 409)) return;
      process.stderr.write(
        `kube-emulator: a controller failed: ${error instanceof Error ? error.message : String(error)}\n`,
      );
    }
  });
}
