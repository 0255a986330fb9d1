import { startAwsEmulator, type World } from '@keymaster/aws-emulator';
import { AwsFacts } from './aws-facts.js';
import type { ServiceAccountIssuer } from './api-server.js';
import type { ControllerProcess } from './controller-process.js';
import type { Kube } from './kube.js';
import type { KubeObject } from './objects.js';
import { RbacManagementCluster, type TenantSpec, type TenantUser } from './rbac-management-cluster.js';

export interface TenancyOptions {
  /** The AWS accounts, users, roles and resources; a function when they trust the API server's issuer. */
  world: World | ((issuer: ServiceAccountIssuer) => World);
  tenants: TenantSpec[];
  /** Created by ops, in order, before the tenants are bound and the controller starts (namespaces first). */
  objects: KubeObject[];
  syncPeriod?: string;
  args?: string[];
  /** Modules the controller's node loads first (`--import`), e.g. follow-aws-emulator-clock.ts. */
  preload?: string[];
  /** Options of the controller's node, e.g. the Deployment's heap limit. */
  nodeOptions?: string[];
  /** What ops do after `objects` and before the controller starts (e.g. install CRDs, then objects of theirs). */
  beforeController?: (management: RbacManagementCluster) => Promise<void>;
}

/** A multi-tenant management cluster under RBAC, an emulated AWS, and the controller: what attacks run on. */
export interface Tenancy {
  aws: AwsFacts;
  management: RbacManagementCluster;
  ops: Kube;
  tenant(name: string): TenantUser;
  /** The controller running now. */
  readonly controller: ControllerProcess;
  /** Stops the controller with `signal` and starts another, with `args` instead of the scenario's. */
  restart(options?: { signal?: NodeJS.Signals; args?: string[] }): Promise<ControllerProcess>;
  stop(): Promise<void>;
}

const running = new Set<Tenancy>();

/** Stops every tenancy still running: the `after` hook of each describe (safe when `before` failed). */
export async function stopTenancies(): Promise<void> {
  for (const tenancy of running) await tenancy.stop();
}

export async function startTenancy(options: TenancyOptions): Promise<Tenancy> {
  const management = await RbacManagementCluster.start({ tenants: options.tenants, objects: options.objects });
  const world = typeof options.world === 'function' ? options.world(management.server.issuer) : options.world;
  const emulator = await startAwsEmulator({ world }).catch(async (error: unknown) => {
    await management.stop();
    throw error;
  });
  const controllerOptions = (args = options.args) => ({
    awsUrl: emulator.url,
    ...(options.syncPeriod ? { syncPeriod: options.syncPeriod } : {}),
    ...(args ? { args } : {}),
    ...(options.preload ? { preload: options.preload } : {}),
    ...(options.nodeOptions ? { nodeOptions: options.nodeOptions } : {}),
  });
  try {
    await options.beforeController?.(management);
    let controller = await management.startController(controllerOptions());
    const tenancy: Tenancy = {
      aws: new AwsFacts(emulator),
      management,
      ops: management.ops,
      tenant: (name) => management.tenant(name),
      get controller() {
        return controller;
      },
      restart: async ({ signal = 'SIGTERM', args } = {}) => {
        await controller.stop(signal);
        controller = await management.startController(controllerOptions(args));
        return controller;
      },
      stop: async () => {
        running.delete(tenancy);
        await management.stop();
        await emulator.stop();
      },
    };
    running.add(tenancy);
    return tenancy;
  } catch (error) {
    await management.stop();
    await emulator.stop();
    throw error;
  }
}
