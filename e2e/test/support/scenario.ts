import { startAwsEmulator, type World } from '@keymaster/aws-emulator';
import { AwsFacts } from './aws-facts.js';
import type { ControllerProcess } from './controller-process.js';
import type { Kube } from './kube.js';
import { ManagementCluster } from './management-cluster.js';
import type { KubeObject } from './objects.js';

export interface ScenarioOptions {
  /** The AWS accounts, users, roles and resources. */
  world: World;
  /** Created in order before the controller starts (namespaces first). */
  objects: KubeObject[];
  syncPeriod?: string;
  args?: string[];
}

export interface Scenario {
  aws: AwsFacts;
  management: ManagementCluster;
  kube: Kube;
  controller: ControllerProcess;
  stop(): Promise<void>;
}

const running = new Set<Scenario>();

/** Stops every scenario still running: the `after` hook of each describe (safe when `before` failed). */
export async function stopScenarios(): Promise<void> {
  for (const scenario of running) await scenario.stop();
}

/** Both emulators, the scenario's objects, and one `keymaster run` process, ready. */
export async function startScenario(options: ScenarioOptions): Promise<Scenario> {
  const emulator = await startAwsEmulator({ world: options.world });
  const management = await ManagementCluster.start(options.objects).catch(async (error: unknown) => {
    await emulator.stop();
    throw error;
  });
  const controller = await management
    .startController({
      awsUrl: emulator.url,
      ...(options.syncPeriod ? { syncPeriod: options.syncPeriod } : {}),
      ...(options.args ? { args: options.args } : {}),
    })
    .catch(async (error: unknown) => {
      await management.stop();
      await emulator.stop();
      throw error;
    });
  const scenario: Scenario = {
    aws: new AwsFacts(emulator),
    management,
    kube: management.kube,
    controller,
    stop: async () => {
      running.delete(scenario);
      await management.stop();
      await emulator.stop();
    },
  };
  running.add(scenario);
  return scenario;
}
