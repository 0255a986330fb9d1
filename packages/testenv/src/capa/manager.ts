import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { provision, testEnvCacheDir } from '../cache.js';
import { executable } from '../files.js';
import { freePorts } from '../kube/ports.js';
import { ServerProcess } from '../kube/process.js';
import { writeServingCertificate } from '../kube/serving-certificate.js';
import { capaVersion } from './installation.js';

const PACKAGE_DIR = fileURLToPath(new URL('../..', import.meta.url));

/** The script that builds CAPA's manager from its Go module (minutes, once per machine). */
export const CAPA_MANAGER_PROVISION_SCRIPT = join(PACKAGE_DIR, 'scripts', 'provision-capa-manager.sh');

/** Where provision-capa-manager.sh puts the binary: one folder per CAPA release. */
export const capaManagerBinary = (cacheDir = testEnvCacheDir()): string =>
  join(cacheDir, 'capa-manager', `v${capaVersion()}`, 'manager');

/** The binary, built first where it is not. */
export function ensureCapaManager(cacheDir = testEnvCacheDir()): string {
  if (!executable(capaManagerBinary(cacheDir))) provision(CAPA_MANAGER_PROVISION_SCRIPT, cacheDir);
  return capaManagerBinary(cacheDir);
}

/**
 * The AWS services CAPA's cluster and machine controllers call, by the names of its
 * `--service-endpoints` flag (CAPA maps them to the SDK's service IDs; ELB's stands for ELBv2 too).
 */
const SERVICES = ['ec2', 'elasticloadbalancing', 'tagging', 'sts', 's3', 'ssm', 'secretsmanager'];

export interface CapaManagerOptions {
  /** A kubeconfig (YAML) with the rights CAPA's manager has (ops' will do). */
  kubeConfig: string;
  /** Every service of SERVICES answers here: moto's URL. */
  awsUrl: string;
  region: string;
  /** CAPA's own AWS principal: its key tells its calls apart from Keymaster's in a recording. */
  accessKeyId: string;
}

/**
 * The manager's command line: its EKS and machine pool controllers off, its webhook
 * server on a free port with its own certificate (nothing calls it: no webhook configuration is
 * installed), its diagnostics and health on free loopback ports, every AWS service at `awsUrl`, a short resync.
 */
export function capaManagerArgs(
  options: Pick<CapaManagerOptions, 'awsUrl' | 'region'>,
  webhook: { certDir: string; port: number },
): string[] {
  const endpoints = SERVICES.map((service) => `${service}=${options.awsUrl}`).join(',');
  return [
    `--webhook-cert-dir=${webhook.certDir}`,
    // 0 would be controller-runtime's default, 9443.
    `--webhook-port=${webhook.port}`,
    '--health-addr=127.0.0.1:0',
    '--diagnostics-address=127.0.0.1:0',
    '--insecure-diagnostics',
    '--feature-gates=EKS=false,MachinePool=false',
    `--service-endpoints=${options.region}:${endpoints}`,
    // Every cluster again every 10 s (CAPA's default: 10 min), as a test of both controllers waits on.
    '--sync-period=10s',
    '--v=2',
  ];
}

export interface CapaManager {
  /** Its log so far (klog's lines). */
  log(): string;
  stop(): Promise<void>;
}

/** Starts CAPA's manager (built first where it is not) against an API server and moto. */
export async function startCapaManager(options: CapaManagerOptions): Promise<CapaManager> {
  const binary = ensureCapaManager();
  const dir = await mkdtemp(join(tmpdir(), 'keymaster-capa-manager-'));
  const certDir = join(dir, 'certs');
  await mkdir(certDir);
  await writeServingCertificate(certDir, 'capa-webhook');
  await writeFile(join(dir, 'kubeconfig'), options.kubeConfig, { mode: 0o600 });
  const server = await ServerProcess.start(
    "CAPA's manager",
    binary,
    capaManagerArgs(options, { certDir, port: (await freePorts(1))[0]! }),
    join(dir, 'manager.log'),
    {
      KUBECONFIG: join(dir, 'kubeconfig'),
      AWS_ACCESS_KEY_ID: options.accessKeyId,
      AWS_SECRET_ACCESS_KEY: 'any',
      AWS_REGION: options.region,
      // Where CAPA reads its static identities' Secrets.
      POD_NAMESPACE: 'capa-system',
    },
  );
  return {
    log: () => server.log(),
    stop: async () => {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
