import { parseRunFlags, startController, type Logger, type RunningController } from '@keymaster/reconciler';
import type { Emulators } from '@keymaster/testenv';

/**
 * The controller in this process against the emulators, as the demo runs it: `/metrics` on a free
 * port, no probes, the emulators' controller keys; `flags` are added to `keymaster run`'s.
 */
export function startControllerOnEmulators(
  emulators: Emulators,
  kubeconfig: string,
  logger: Logger,
  flags: readonly string[] = [],
): Promise<RunningController> {
  const { accessKeyId, secretAccessKey } = emulators.controller;
  return startController(
    parseRunFlags([
      '--kubeconfig',
      kubeconfig,
      '--metrics-bind-address',
      '127.0.0.1:0',
      '--health-probe-bind-address',
      '0',
      ...flags,
    ]),
    {
      logger,
      aws: { endpoint: emulators.aws.url, credentials: () => Promise.resolve({ accessKeyId, secretAccessKey }) },
    },
  );
}
