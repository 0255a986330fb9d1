import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CustomObjectsApi,
  KubeConfig,
  KubernetesObjectApi,
  type KubernetesObject,
  type RbacV1Subject,
  type V1PolicyRule,
  type V1RoleBinding,
} from '@kubernetes/client-node';
import type { AWSCluster } from '@keymaster/api';
import { startRbacApiServer, type ApiServer, type ApiUser } from './api-server.js';
import { CONTROLLER_KEY } from './aws-world.js';
import { ControllerProcess } from './controller-process.js';
import { Kube } from './kube.js';
import type { ControllerOptions } from './management-cluster.js';
import type { KubeObject } from './objects.js';
import {
  CONTROLLER_SERVICE_ACCOUNT,
  everythingInNamespace,
  manifests,
  tenantBindings,
  tenantRoles,
} from './rbac-manifests.js';
import { untilAllowed } from './settled.js';

const OPS_TOKEN = 'ops-token';
const CONTROLLER_TOKEN = 'keymaster-token';

export interface TenantSpec {
  /** The tenant's namespace; its users are the group `<name>-developers`. */
  name: string;
  /** Bound to the editor role's variant that may also write `awsclusters/status` (one attack only). */
  statusWrite?: boolean;
  /** Bound to the example's optional identity viewer (the default); false: it reads no identity. */
  identityViewer?: boolean;
  /** Also granted everything in its namespace (`*` on `*`), as some platforms do (one attack only). */
  everything?: boolean;
  /**
   * Bound by the example's ResourceQuota too (one attack only): the others flood a namespace past it
   * to prove the controller's own caps.
   */
  quota?: boolean;
}

/** A developer of one tenant: bound by docs/security.md's tenant RBAC, and nothing else. */
export class TenantUser {
  readonly kube: Kube;
  readonly #custom: CustomObjectsApi;

  constructor(
    readonly namespace: string,
    kubeConfigYaml: string,
  ) {
    this.kube = new Kube(kubeConfigYaml);
    const config = new KubeConfig();
    config.loadFromString(kubeConfigYaml);
    this.#custom = config.makeApiClient(CustomObjectsApi);
  }

  /** PUT on `/status` (only a tenant bound with `statusWrite` may). */
  async replaceStatus(cluster: AWSCluster): Promise<void> {
    await this.#custom.replaceNamespacedCustomObjectStatus({
      group: 'infrastructure.keymaster.dev',
      version: 'v1beta1',
      plural: 'awsclusters',
      namespace: cluster.metadata.namespace!,
      name: cluster.metadata.name!,
      body: cluster,
    });
  }
}

/**
 * A management cluster as docs/security.md sets one up for many tenants: an API server that
 * enforces RBAC, deploy/manager's namespace, deploy/rbac and deploy/policies, the controller running as its
 * ServiceAccount, ops in `system:masters`, and each tenant's developers under the tenant RBAC example.
 */
export class RbacManagementCluster {
  readonly controllers: ControllerProcess[] = [];
  /** The management cluster operator: creates identities, Secrets, the tag policy, namespaces. */
  readonly ops: Kube;
  readonly #tenants: Map<string, TenantUser>;
  /** Ops' client for objects Keymaster's types do not cover (RBAC). */
  readonly #objects: KubernetesObjectApi;
  /** The rules of the Roles and ClusterRoles installed, by `kind/namespace/name`. */
  readonly #rules = new Map<string, V1PolicyRule[]>();

  private constructor(
    readonly server: ApiServer,
    readonly dir: string,
    readonly tenantSpecs: TenantSpec[],
  ) {
    this.ops = new Kube(server.kubeConfig({ token: OPS_TOKEN }));
    const config = new KubeConfig();
    config.loadFromString(server.kubeConfig({ token: OPS_TOKEN }));
    this.#objects = KubernetesObjectApi.makeApiClient(config);
    this.#tenants = new Map(
      tenantSpecs.map(({ name }) => [name, new TenantUser(name, server.kubeConfig({ token: `${name}-token` }))]),
    );
  }

  /**
   * Starts the API server and installs the RBAC; then installs `objects` as ops, in order, and binds
   * the tenants (their namespaces must be among the objects unless `bindTenants` is false).
   */
  static async start(options: {
    tenants: TenantSpec[];
    objects?: KubeObject[];
    bindTenants?: boolean;
    tokenClock?: () => number;
    /** kube-controller-manager's controllers on the real backend (a quota's status, see startRbacApiServer). */
    controllerManager?: boolean;
  }): Promise<RbacManagementCluster> {
    const dir = await mkdtemp(join(tmpdir(), 'keymaster-e2e-rbac-'));
    const users: ApiUser[] = [
      { token: OPS_TOKEN, user: 'ops', uid: 'ops', groups: ['system:masters'] },
      { token: CONTROLLER_TOKEN, user: CONTROLLER_SERVICE_ACCOUNT, uid: 'keymaster' },
      ...options.tenants.map(({ name }) => ({
        token: `${name}-token`,
        user: `${name}-dev`,
        uid: `${name}-dev`,
        groups: [`${name}-developers`],
      })),
    ];
    const server = await startRbacApiServer(dir, users, {
      ...(options.tokenClock ? { tokenClock: options.tokenClock } : {}),
      controllerManager: options.controllerManager ?? false,
    });
    const cluster = new RbacManagementCluster(server, dir, options.tenants);
    try {
      await server.writeKubeConfig(join(dir, 'kubeconfig'), { token: CONTROLLER_TOKEN });
      const namespaces = (await manifests('deploy/manager')).filter(({ kind }) => kind === 'Namespace');
      await cluster.install([...namespaces, ...(await manifests('deploy/rbac')), ...(await tenantRoles())]);
      await cluster.install(await manifests('deploy/policies'));
      await cluster.install((options.objects ?? []) as KubernetesObject[]);
      if (options.bindTenants ?? true) await cluster.bindTenants();
    } catch (error) {
      await cluster.stop();
      throw error;
    }
    return cluster;
  }

  /** The tenants' RoleBindings and ClusterRoleBindings (after their namespaces exist). */
  async bindTenants(): Promise<void> {
    for (const { name, statusWrite, identityViewer, everything, quota } of this.tenantSpecs) {
      await this.install(
        await tenantBindings(name, {
          statusWrite: statusWrite ?? false,
          identityViewer: identityViewer ?? true,
          quota: quota ?? false,
        }),
      );
      if (everything) await this.install(everythingInNamespace(name));
    }
  }

  tenant(name: string): TenantUser {
    const tenant = this.#tenants.get(name);
    if (!tenant) throw new Error(`no tenant ${name} in this management cluster`);
    return tenant;
  }

  /** The ops user's kubeconfig, for clients of one's own. */
  opsKubeConfig(): string {
    return this.server.kubeConfig({ token: OPS_TOKEN });
  }

  /** A tenant's developers' kubeconfig, for the commands they run (kubectl, keymaster). */
  tenantKubeConfig(name: string): string {
    this.tenant(name);
    return this.server.kubeConfig({ token: `${name}-token` });
  }

  /** Starts `keymaster run` as the ServiceAccount and waits until it is ready. */
  async startController(options: ControllerOptions): Promise<ControllerProcess> {
    const controller = await ControllerProcess.start({
      kubeconfig: join(this.dir, 'kubeconfig'),
      credentials: CONTROLLER_KEY,
      ...options,
    });
    this.controllers.push(controller);
    return controller;
  }

  async stop(): Promise<void> {
    await Promise.all(this.controllers.map((controller) => controller.stop()));
    await this.server.stop();
    await rm(this.dir, { recursive: true, force: true });
  }

  /**
   * Creates the objects as ops, then waits until each binding's subjects that have a token here may do what
   * its role grants first (RBAC's authorizer reads bindings from its own cache: kube-apiserver applies
   * them a moment later), as a user would check with `kubectl auth can-i`.
   */
  async install(objects: KubernetesObject[]): Promise<void> {
    for (const object of objects) {
      await this.#objects.create(object);
      if (object.kind === 'Role' || object.kind === 'ClusterRole') {
        const { metadata, rules } = object as KubernetesObject & { rules?: V1PolicyRule[] };
        this.#rules.set(`${object.kind}/${metadata?.namespace ?? ''}/${metadata?.name ?? ''}`, rules ?? []);
      }
    }
    for (const object of objects) {
      if (object.kind !== 'RoleBinding' && object.kind !== 'ClusterRoleBinding') continue;
      const { metadata, roleRef, subjects = [] } = object as V1RoleBinding;
      const roleNamespace = roleRef.kind === 'Role' ? (metadata?.namespace ?? '') : '';
      const rule = this.#rules
        .get(`${roleRef.kind}/${roleNamespace}/${roleRef.name}`)
        ?.find(({ resources }) => resources);
      if (!rule) continue;
      const [resource = '', subresource] = rule.resources![0]!.split('/');
      const attributes = {
        group: rule.apiGroups?.[0] ?? '',
        resource,
        ...(subresource ? { subresource } : {}),
        verb: rule.verbs[0]!,
        ...(metadata?.namespace ? { namespace: metadata.namespace } : {}),
        ...(rule.resourceNames?.[0] ? { name: rule.resourceNames[0] } : {}),
      };
      for (const token of subjects.map((subject) => this.#tokenOf(subject)))
        if (token) await untilAllowed(this.server.kubeConfig({ token }), [attributes]);
    }
  }

  /** The token of a binding's subject, when it is one of this cluster's users (the controller, a tenant's developers). */
  #tokenOf({ kind, name, namespace }: RbacV1Subject): string | undefined {
    if (kind === 'ServiceAccount' && `system:serviceaccount:${namespace}:${name}` === CONTROLLER_SERVICE_ACCOUNT)
      return CONTROLLER_TOKEN;
    const tenant = kind === 'Group' ? this.tenantSpecs.find((spec) => `${spec.name}-developers` === name) : undefined;
    return tenant ? `${tenant.name}-token` : undefined;
  }
}
