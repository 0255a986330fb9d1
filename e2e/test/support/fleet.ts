import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAwsEmulator, type World } from '@keymaster/aws-emulator';
import { startRbacApiServer, type ApiServer } from './api-server.js';
import { AwsFacts } from './aws-facts.js';
import { CONTROLLER_KEY } from './aws-world.js';
import { ControllerProcess, type KeymasterTree } from './controller-process.js';
import { Ops, type Installer } from './installer.js';
import { Kube } from './kube.js';

const OPS = { token: 'ops-token', user: 'ops', uid: 'ops', groups: ['system:masters'] };

/**
 * A management cluster as a platform team runs it: an API server with nothing of Keymaster's until ops
 * install it (`installer`, as docs/operations.md says), an emulated AWS, and the controller of whichever
 * tree is installed, run as its Deployment would run it: the Deployment's flags, a token of its
 * ServiceAccount. What upgrades and rollbacks run on.
 */
export class Fleet {
  controller: ControllerProcess | undefined;
  readonly kube: Kube;
  readonly installer: Installer;

  private constructor(
    readonly dir: string,
    readonly server: ApiServer,
    readonly ops: Ops,
    readonly aws: AwsFacts,
    installerOf: (ops: Ops) => Installer,
  ) {
    this.kube = new Kube(ops.kubeConfigYaml);
    this.installer = installerOf(ops);
  }

  static async start(world: World, installerOf: (ops: Ops) => Installer): Promise<Fleet> {
    const dir = await mkdtemp(join(tmpdir(), 'keymaster-e2e-fleet-'));
    const server = await startRbacApiServer(dir, [OPS], { crds: false });
    const emulator = await startAwsEmulator({ world }).catch(async (error: unknown) => {
      await server.stop();
      throw error;
    });
    return new Fleet(
      dir,
      server,
      new Ops(dir, server.kubeConfig({ token: OPS.token })),
      new AwsFacts(emulator),
      installerOf,
    );
  }

  /**
   * Starts the `keymaster run` of `tree` (the one installed) as the installed Deployment runs it (its
   * flags, its NODE_OPTIONS), with `args` after its flags, and waits until it is ready.
   */
  async run(tree: KeymasterTree, args: string[] = []): Promise<ControllerProcess> {
    const kubeconfig = join(await mkdtemp(join(this.dir, 'controller-')), 'kubeconfig');
    await this.server.writeKubeConfig(kubeconfig, { token: await this.ops.serviceAccountToken() });
    const deployed = await this.ops.deployedController();
    this.controller = await ControllerProcess.start({
      tree,
      kubeconfig,
      awsUrl: this.aws.emulator.url,
      credentials: CONTROLLER_KEY,
      args: [...deployed.args, ...args],
      nodeOptions: deployed.nodeOptions,
    });
    return this.controller;
  }

  /** Stops the controller as Kubernetes stops a pod (SIGTERM); it must exit 0. */
  async stopController(): Promise<void> {
    const exit = await this.controller?.stop('SIGTERM');
    this.controller = undefined;
    if (exit && exit.code !== 0) throw new Error(`keymaster run exited ${JSON.stringify(exit)} on SIGTERM`);
  }

  async stop(): Promise<void> {
    await this.controller?.stop('SIGKILL');
    await this.server.stop();
    await this.aws.emulator.stop();
    await rm(this.dir, { recursive: true, force: true });
  }
}
