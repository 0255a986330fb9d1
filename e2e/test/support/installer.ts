import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { V1Deployment } from '@kubernetes/client-node';
import { requireHelm } from '@keymaster/testenv';
import type { KeymasterTree } from './controller-process.js';
import { CONTROLLER_NAMESPACE } from './objects.js';
import { documentedCommands, runDocumented } from './documented-commands.js';
import { kubectl } from './kubectl.js';

const run = promisify(execFile);
const RELEASE = 'keymaster';
const CHART = 'deploy/helm/keymaster';
const DEPLOYMENT = 'keymaster-controller';

/** How ops install and upgrade Keymaster on a management cluster: docs/operations.md's commands, word for word. */
export interface Installer {
  readonly name: string;
  /** The first install of `tree`. */
  install(tree: KeymasterTree): Promise<void>;
  /** From what is installed to `tree`, a newer release. */
  upgrade(tree: KeymasterTree): Promise<void>;
  /** Back to `tree`, the release installed before the upgrade. */
  rollback(tree: KeymasterTree): Promise<void>;
}

/** ops' kubectl against one API server, in its own scratch dir; a command that fails throws with what it printed. */
export class Ops {
  constructor(
    readonly dir: string,
    readonly kubeConfigYaml: string,
  ) {}

  /** A block of commands of docs/operations.md, run as written in ops' scratch dir; what it printed. */
  async documented(marker: string): Promise<string> {
    const commands = await documentedCommands('docs/operations.md', marker);
    const result = await runDocumented(commands, this.kubeConfigYaml, {}, this.dir);
    if (result.code !== 0) throw new Error(`the ${marker} commands failed (${result.code}):\n${result.stderr}`);
    return result.stdout;
  }

  async kubectl(...args: string[]): Promise<string> {
    const result = await kubectl(this.dir, this.kubeConfigYaml, args);
    if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${result.code}):\n${result.stderr}`);
    return result.stdout;
  }

  /** Waits until every CRD is Established (and its resources are served: the real server answers 429 before). */
  async crdsEstablished(): Promise<void> {
    await this.kubectl('wait', '--for=condition=Established', '--timeout=60s', 'crd', '--all');
  }

  /**
   * How the controller's Deployment as installed runs `keymaster run`: its container's `args`, `run`
   * dropped, `$(POD_NAMESPACE)` expanded, the ports left to the test (a pod has its own network); and
   * its `NODE_OPTIONS` (the heap limit).
   */
  async deployedController(): Promise<{ args: string[]; nodeOptions: string[] }> {
    const deployment = JSON.parse(
      await this.kubectl('get', 'deployment', DEPLOYMENT, '-n', CONTROLLER_NAMESPACE, '-o', 'json'),
    ) as V1Deployment;
    const container = deployment.spec?.template.spec?.containers[0];
    const [command, ...args] = container?.args ?? [];
    if (command !== 'run') throw new Error(`the Deployment's container does not run \`keymaster run\`: ${command}`);
    const nodeOptions = container?.env?.find(({ name }) => name === 'NODE_OPTIONS')?.value;
    return {
      args: args
        .filter((arg) => !/^--(metrics-bind-address|health-probe-bind-address)=/.test(arg))
        .map((arg) => arg.replaceAll('$(POD_NAMESPACE)', CONTROLLER_NAMESPACE)),
      nodeOptions: nodeOptions ? nodeOptions.split(' ') : [],
    };
  }

  /** A token of the controller's ServiceAccount, as its pod would have one (TokenRequest). */
  async serviceAccountToken(): Promise<string> {
    return (await this.kubectl('create', 'token', 'keymaster', '-n', CONTROLLER_NAMESPACE, '--duration=2h')).trim();
  }
}

/** `kubectl apply -k deploy` to install, upgrade and roll back (docs/operations.md "Install", "Upgrade"). */
export function kustomize(ops: Ops): Installer {
  const apply = async (tree: KeymasterTree) => {
    await ops.kubectl('apply', '-k', join(tree.dir, 'deploy'));
    await ops.crdsEstablished();
  };
  return { name: 'kubectl apply -k deploy', install: apply, upgrade: apply, rollback: apply };
}

/** The pinned helm as ops, with a home of its own (no repositories, no user settings). */
async function helm(ops: Ops, args: string[]): Promise<string> {
  const home = await mkdtemp(join(ops.dir, 'helm-'));
  const kubeconfig = join(home, 'kubeconfig');
  await writeFile(kubeconfig, ops.kubeConfigYaml, { mode: 0o600 });
  try {
    const { stdout } = await run(requireHelm(), args, {
      env: { PATH: process.env['PATH'] ?? '', HOME: home, KUBECONFIG: kubeconfig },
      maxBuffer: 64 * 1024 * 1024,
      timeout: 120_000,
    });
    return stdout;
  } catch (error) {
    const { stderr } = error as { stderr?: string };
    throw new Error(`helm ${args.join(' ')} failed:\n${stderr ?? String(error)}`, { cause: error });
  }
}

/**
 * The Helm chart: `helm install`, then to upgrade the CRDs first (Helm installs a chart's `crds/` once
 * and never upgrades them) and `helm upgrade`; a rollback is `helm rollback` (docs/operations.md).
 */
export const helmChart = (ops: Ops): Installer => ({
  name: 'helm install, helm upgrade',
  install: async (tree) => {
    await helm(ops, [
      'install',
      RELEASE,
      join(tree.dir, CHART),
      '--namespace',
      CONTROLLER_NAMESPACE,
      '--create-namespace',
    ]);
    await ops.crdsEstablished();
  },
  upgrade: async (tree) => {
    await ops.kubectl('apply', '--server-side', '--force-conflicts', '-f', join(tree.dir, CHART, 'crds'));
    await ops.crdsEstablished();
    await helm(ops, ['upgrade', RELEASE, join(tree.dir, CHART), '--namespace', CONTROLLER_NAMESPACE]);
  },
  rollback: async () => {
    await helm(ops, ['rollback', RELEASE, '--namespace', CONTROLLER_NAMESPACE]);
  },
});
