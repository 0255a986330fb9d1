import { startAwsEmulator, type World } from '@keymaster/aws-emulator';
import type { ServiceAccountIssuer } from './api-server.js';
import { AwsFacts } from './aws-facts.js';
import type { ControllerProcess } from './controller-process.js';
import type { Kube } from './kube.js';
import { ManagementCluster } from './management-cluster.js';
import type { KubeObject } from './objects.js';

export interface ScenarioOptions {
  /** The AWS accounts, users, roles and resources; a function when they trust the API server's issuer. */
  world: World | ((issuer: ServiceAccountIssuer) => World);
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
  // Tokens are issued on the aws-emulator's clock (kube-emulator backend), so that moving it keeps them fresh.
  let now = () => Date.now();
  const management = await ManagementCluster.start(options.objects, () => now());
  const world = typeof options.world === 'function' ? options.world(management.server.issuer) : options.world;
  const emulator = await startAwsEmulator({ world }).catch(async (error: unknown) => {
    await management.stop();
    throw error;
  });
  now = () => emulator.clock.nowMs();
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
