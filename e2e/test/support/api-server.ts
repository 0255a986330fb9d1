import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startKubeEmulator, type Stats } from '@keymaster/kube-emulator';
import { startRealKube, TestEnvError } from '@keymaster/testenv';
import { AuditStats } from './audit-stats.js';
import { REPO_ROOT } from './controller-process.js';

/** A user of the API server, as a line of kube-apiserver's `--token-auth-file`. */
export interface ApiUser {
  token: string;
  user: string;
  uid: string;
  groups?: string[];
}

/** The requests an API server answered, per user, verb and resource, RBAC's refusals apart. */
export type RequestStats = Pick<Stats, 'requests' | 'total' | 'forbidden' | 'reset'>;

/** The `--service-account-issuer` of an API server: the `iss` of its tokens, and the CA of its discovery. */
export interface ServiceAccountIssuer {
  url: string;
  ca: string;
}

/** What the tests need of an API server: kubeconfigs for its users, its request counts, its issuer, and stopping it. */
export interface ApiServer {
  kubeConfig(options: { token: string }): string;
  readonly issuer: ServiceAccountIssuer;
  writeKubeConfig(path: string, options: { token: string }): Promise<void>;
  readonly requests: RequestStats;
  stop(): Promise<void>;
}

export interface ApiServerOptions {
  /** Install deploy/crds at start (the default); false leaves them to the test (`kubectl apply -k deploy`). */
  crds?: boolean;
  /**
   * The time service-account tokens are issued at (ms), for tests that move the aws-emulator's clock:
   * the kube-emulator follows it; a real kube-apiserver keeps its own (its tests do not move the clock).
   */
  tokenClock?: () => number;
  /**
   * Run kube-controller-manager's namespace, garbage-collector and resourcequota controllers on the
   * real backend (a ResourceQuota limits nothing until its controller fills its status); the
   * kube-emulator runs its own always.
   */
  controllerManager?: boolean;
}

const BACKENDS = ['emulator', 'real'] as const;
export type Backend = (typeof BACKENDS)[number];

function backendOf(value: string | undefined): Backend {
  if (value === undefined || value === '') return 'emulator';
  if ((BACKENDS as readonly string[]).includes(value)) return value as Backend;
  throw new Error(
    `KEYMASTER_E2E_BACKEND=${JSON.stringify(value)} is not a backend: use emulator (the default: the kube-emulator) ` +
      'or real (kube-apiserver + etcd of @keymaster/testenv, built by packages/testenv/scripts/provision-kube.sh)',
  );
}

/** The API server every e2e test runs on, chosen once for the run by KEYMASTER_E2E_BACKEND. */
export const BACKEND: Backend = backendOf(process.env['KEYMASTER_E2E_BACKEND']);

const csvLine = ({ token, user, uid, groups = [] }: ApiUser) =>
  [token, user, uid, ...(groups.length > 0 ? [`"${groups.join(',')}"`] : [])].join(',');

/**
 * An API server that knows `users` by their tokens, enforces RBAC and serves HTTPS, with Keymaster's
 * CRDs unless told otherwise. The backend is chosen here and nowhere else (BACKEND): the kube-emulator
 * (`--authorization-mode RBAC`, its request statistics) or the real kube-apiserver + etcd
 * (`startRealKube` of @keymaster/testenv, requests counted from its audit log).
 */
export async function startRbacApiServer(
  dir: string,
  users: ApiUser[],
  { crds = true, tokenClock, controllerManager = false }: ApiServerOptions = {},
): Promise<ApiServer> {
  const tokenAuthFile = join(dir, 'tokens.csv');
  await writeFile(tokenAuthFile, `${users.map(csvLine).join('\n')}\n`);
  const crdFolder = crds ? { crds: join(REPO_ROOT, 'deploy/crds') } : {};
  if (BACKEND === 'real') {
    const kube = await startRealKube({ ...crdFolder, tokenAuthFile, audit: true, controllerManager }).catch(
      (error: unknown) => {
        // Mocha prints the message only: the hint says how to get what is missing (provision-kube.sh).
        if (error instanceof TestEnvError && error.hint) throw new Error(`${error.message}\nhint: ${error.hint}`);
        throw error;
      },
    );
    return {
      kubeConfig: (options) => kube.kubeConfig(options),
      writeKubeConfig: (path, options) => kube.writeKubeConfig(path, options),
      requests: new AuditStats(kube.auditLog!),
      issuer: { url: kube.issuer, ca: kube.caCertificate },
      stop: () => kube.stop(),
    };
  }
  const emulator = await startKubeEmulator({
    ...crdFolder,
    tokenAuthFile,
    authorization: 'RBAC',
    tls: true,
    ...(tokenClock ? { serviceAccountTokenClock: tokenClock } : {}),
  });
  return {
    kubeConfig: (options) => emulator.kubeConfig(options),
    writeKubeConfig: (path, options) => emulator.writeKubeConfig(path, options),
    requests: emulator.stats,
    issuer: { url: emulator.serviceAccountIssuer, ca: emulator.caCertificate! },
    stop: () => emulator.stop(),
  };
}
