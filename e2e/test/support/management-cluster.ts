import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startKubeEmulator, type KubeEmulator } from '@keymaster/kube-emulator';
import { CONTROLLER_KEY } from './aws-world.js';
import { ControllerProcess, REPO_ROOT } from './controller-process.js';
import { Kube } from './kube.js';
import { CONTROLLER_NAMESPACE, namespace, type KubeObject } from './objects.js';

/** The users of the emulated API server: the controller's requests are counted apart from the test's. */
const CONTROLLER_TOKEN = 'keymaster-token';
const TEST_TOKEN = 'e2e-token';
export const CONTROLLER_USER_NAME = 'keymaster';

export interface ControllerOptions {
  awsUrl: string;
  syncPeriod?: string;
  args?: string[];
}

/**
 * A management cluster: a kube-emulator with Keymaster's CRDs and the controller's namespace, the
 * test's client, and the `keymaster run` processes started against it.
 */
export class ManagementCluster {
  readonly controllers: ControllerProcess[] = [];

  private constructor(
    readonly emulator: KubeEmulator,
    readonly kube: Kube,
    readonly dir: string,
  ) {}

  static async start(objects: KubeObject[] = []): Promise<ManagementCluster> {
    const dir = await mkdtemp(join(tmpdir(), 'keymaster-e2e-'));
    const tokens = join(dir, 'tokens.csv');
    await writeFile(tokens, `${CONTROLLER_TOKEN},${CONTROLLER_USER_NAME},1\n${TEST_TOKEN},e2e,2\n`);
    const emulator = await startKubeEmulator({ crds: join(REPO_ROOT, 'deploy/crds'), tokenAuthFile: tokens });
    await emulator.writeKubeConfig(join(dir, 'kubeconfig'), { token: CONTROLLER_TOKEN });
    const cluster = new ManagementCluster(emulator, new Kube(emulator.kubeConfig({ token: TEST_TOKEN })), dir);
    try {
      await cluster.kube.create(namespace(CONTROLLER_NAMESPACE), ...objects);
    } catch (error) {
      await cluster.stop();
      throw error;
    }
    return cluster;
  }

  /** Starts `keymaster run` against this cluster and waits until it is ready (caches synced). */
  async startController(options: ControllerOptions): Promise<ControllerProcess> {
    const controller = await ControllerProcess.start({
      kubeconfig: join(this.dir, 'kubeconfig'),
      credentials: CONTROLLER_KEY,
      ...options,
    });
    this.controllers.push(controller);
    return controller;
  }

  /**
   * The controller's status writes on AWSClusters, as the API server counted them: its PUTs, since it
   * writes status with PUT on /status and everything else (finalizers) with patches.
   */
  statusWrites(): number {
    return this.emulator.stats.total({
      verb: 'update',
      resource: 'awsclusters.infrastructure.keymaster.dev',
      user: CONTROLLER_USER_NAME,
    });
  }

  /** Stops every controller still running (SIGTERM), then the API server. */
  async stop(): Promise<void> {
    await Promise.all(this.controllers.map((controller) => controller.stop()));
    await this.emulator.stop();
    await rm(this.dir, { recursive: true, force: true });
  }
}
