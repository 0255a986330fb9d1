import type { ApiServer } from './api-server.js';
import type { AccessKey } from './aws-world.js';
import type { ControllerProcess } from './controller-process.js';
import type { Kube } from './kube.js';
import type { KubeObject } from './objects.js';
import { RbacManagementCluster } from './rbac-management-cluster.js';
import { CONTROLLER_SERVICE_ACCOUNT } from './rbac-manifests.js';

export interface ControllerOptions {
  awsUrl: string;
  syncPeriod?: string;
  args?: string[];
  /** The controller's own AWS keys (default: CONTROLLER_KEY of aws-world.ts). */
  credentials?: AccessKey;
  /** Modules the controller's node loads first (`--import`). */
  preload?: string[];
}

/**
 * A management cluster with no tenant users: Keymaster installed as docs/operations.md says on an
 * API server enforcing RBAC (the backend api-server.ts chose), the test acting as ops
 * (`system:masters`), and `keymaster run` processes started as the controller's ServiceAccount.
 */
export class ManagementCluster {
  private constructor(private readonly cluster: RbacManagementCluster) {}

  /** Starts the API server, installs Keymaster's namespace and RBAC, then creates `objects` in order. */
  static async start(objects: KubeObject[] = [], tokenClock?: () => number): Promise<ManagementCluster> {
    return new ManagementCluster(
      await RbacManagementCluster.start({ tenants: [], objects, ...(tokenClock ? { tokenClock } : {}) }),
    );
  }

  /** The test's client: ops. */
  get kube(): Kube {
    return this.cluster.ops;
  }

  /** The ops user's kubeconfig (YAML), for kubectl and clusterctl. */
  opsKubeConfig(): string {
    return this.cluster.opsKubeConfig();
  }

  get server(): ApiServer {
    return this.cluster.server;
  }

  get controllers(): ControllerProcess[] {
    return this.cluster.controllers;
  }

  /** Starts `keymaster run` against this cluster and waits until it is ready (caches synced). */
  startController(options: ControllerOptions): Promise<ControllerProcess> {
    return this.cluster.startController(options);
  }

  /**
   * The controller's status writes on AWSClusters, as the API server counted them: its updates
   * (PUT on /status), since everything else it writes there (finalizers) is a patch.
   */
  statusWrites(): number {
    return this.server.requests.total({
      verb: 'update',
      resource: 'awsclusters.infrastructure.keymaster.dev',
      user: CONTROLLER_SERVICE_ACCOUNT,
    });
  }

  /** The controller's writes of AWSClusterLedgers (creates and replacements), as the API server counted them. */
  ledgerWrites(): number {
    return ['create', 'update'].reduce(
      (sum, verb) =>
        sum +
        this.server.requests.total({
          verb,
          resource: 'awsclusterledgers.infrastructure.keymaster.dev',
          user: CONTROLLER_SERVICE_ACCOUNT,
        }),
      0,
    );
  }

  /** Stops every controller still running (SIGTERM), then the API server. */
  stop(): Promise<void> {
    return this.cluster.stop();
  }
}
