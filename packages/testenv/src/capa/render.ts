import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureClusterctl } from '../clusterctl/installation.js';
import { TestEnvError } from '../errors.js';
import { capaTemplate, type CapaFlavour } from './installation.js';

export interface CapaClusterOptions {
  flavour: CapaFlavour;
  name: string;
  namespace: string;
  /** The templates' variables (`${AWS_REGION}`...), over the defaults of CAPA_TEMPLATE_VARIABLES. */
  variables?: Record<string, string>;
  kubernetesVersion?: string;
}

/**
 * A value for every variable the three flavours use (templates/ of CAPA's module), as CAPA's docs
 * export them before `clusterctl generate cluster`; tests override what they look at.
 */
export const CAPA_TEMPLATE_VARIABLES: Readonly<Record<string, string>> = {
  AWS_REGION: 'eu-west-1',
  AWS_SSH_KEY_NAME: 'default',
  AWS_CONTROL_PLANE_MACHINE_TYPE: 't3.large',
  AWS_NODE_MACHINE_TYPE: 't3.large',
  // The multitenancy flavour's ClusterResourceSet ConfigMap (its `data`) and its chain of two roles.
  CNI_RESOURCES: '{}',
  MULTI_TENANCY_JUMP_IDENTITY_NAME: 'jump',
  MULTI_TENANCY_JUMP_ROLE_ARN: 'arn:aws:iam::111111111111:role/capa-jump',
  MULTI_TENANCY_NESTED_IDENTITY_NAME: 'nested',
  MULTI_TENANCY_NESTED_ROLE_ARN: 'arn:aws:iam::222222222222:role/capa-nested',
};

/**
 * The YAML `clusterctl generate cluster NAME --from TEMPLATE --target-namespace NAMESPACE` prints for
 * a flavour of CAPA's templates, with the pinned clusterctl (built first where it is not): what an
 * ops user pipes to `kubectl apply`. Offline: the template is a local file and clusterctl's check for a newer release is off.
 */
export async function renderCapaCluster(options: CapaClusterOptions): Promise<string> {
  const { clusterctl } = ensureClusterctl();
  const args = [
    'generate',
    'cluster',
    options.name,
    '--from',
    capaTemplate(options.flavour),
    '--target-namespace',
    options.namespace,
    '--kubernetes-version',
    options.kubernetesVersion ?? 'v1.35.0',
    '--control-plane-machine-count',
    '1',
    '--worker-machine-count',
    '1',
  ];
  // Its own HOME: no user's clusterctl.yaml, whose variables would win over ours.
  const home = await mkdtemp(join(tmpdir(), 'keymaster-clusterctl-'));
  try {
    const env = {
      PATH: process.env['PATH'] ?? '',
      HOME: home,
      CLUSTERCTL_DISABLE_VERSIONCHECK: 'true',
      ...CAPA_TEMPLATE_VARIABLES,
      ...options.variables,
    };
    return await new Promise<string>((resolve, reject) =>
      execFile(clusterctl, args, { cwd: home, env, timeout: 60_000, maxBuffer: 16 << 20 }, (error, stdout, stderr) =>
        error
          ? reject(
              new TestEnvError('ERR_KEYMASTER_TESTENV_CLUSTERCTL', `clusterctl ${args.join(' ')} failed: ${stderr}`, {
                hint: 'its message names what it refused: a variable the template needs (set it in variables), or the name',
                cause: error,
              }),
            )
          : resolve(stdout),
      ),
    );
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}
