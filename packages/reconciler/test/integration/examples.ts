import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { parseRunFlags } from '../../src/cli/flags.js';
import { startController, type RunningController } from '../../src/cli/run.js';
import {
  createObjects,
  DEMO_WORLD,
  EXAMPLES_DIR,
  readManifests,
  startEmulators,
  type Emulators,
} from '@keymaster/testenv';
import { createControllerLogger } from '../../src/logging.js';

/** The demo's emulators with deploy/examples applied, their kubeconfig in a folder of their own. */
export interface ExamplesPlatform {
  dir: string;
  kubeconfig: string;
  emulators: Emulators;
  /** `keymaster run` in-process against them, with the controller's own keys (stopped by the caller). */
  startController(): Promise<RunningController>;
  /** Stops the emulators and removes the folder. */
  stop(): Promise<void>;
}

export async function startExamples(name: string): Promise<ExamplesPlatform> {
  const dir = await mkdtemp(join(tmpdir(), `keymaster-${name}-test-`));
  const kubeconfig = join(dir, 'kubeconfig');
  const emulators = await startEmulators({ world: DEMO_WORLD, kubeconfig, namespace: 'keymaster-system' });
  await createObjects(emulators.kubeConfig, await readManifests(EXAMPLES_DIR));
  const { accessKeyId, secretAccessKey } = emulators.controller;
  return {
    dir,
    kubeconfig,
    emulators,
    startController: () =>
      startController(
        parseRunFlags(['--kubeconfig', kubeconfig, '--metrics-bind-address', '0', '--health-probe-bind-address', '0']),
        {
          logger: createControllerLogger('error', 'json', new PassThrough().resume()),
          aws: { endpoint: emulators.aws.url, credentials: () => Promise.resolve({ accessKeyId, secretAccessKey }) },
        },
      ),
    stop: async () => {
      await emulators.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
