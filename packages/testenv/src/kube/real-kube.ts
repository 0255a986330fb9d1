import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubeConfigYaml, type KubeConfigOptions } from '@keymaster/kube-emulator';
import { apiserverArgs } from './apiserver.js';
import { auditLogFlags } from './audit.js';
import { requireKubeBinaries } from './binaries.js';
import { AdminClient } from './client.js';
import { CONTROLLER_MANAGER_USER, startControllerManager } from './controller-manager.js';
import { startEtcd } from './etcd.js';
import { generatePki } from './pki.js';
import { freePorts, startOnFreePorts } from './ports.js';
import { ServerProcess } from './process.js';
import { createNamespaces, installCrds } from './setup.js';
import { ADMIN_USER, readTokenAuthFile, tokenFileText, type TokenUser } from './tokens.js';

export interface RealKubeOptions {
  /** A folder of CRD YAML files to install; start returns once every CRD is Established. */
  crds?: string;
  /** Users of the static token file, besides the admin (e.g. a tenant, to act under real RBAC). */
  tokens?: TokenUser[];
  /** A `--token-auth-file` CSV whose users are added too (the kube-emulator's option of that name). */
  tokenAuthFile?: string;
  /** Namespaces to create once the server is ready (`pnpm real-kube` creates keymaster-system). */
  namespaces?: string[];
  /**
   * Also run kube-controller-manager's namespace controller and garbage collector, as the
   * kube-emulator does (envtest does not): deleted namespaces are emptied, then removed, and
   * objects whose owners are gone are deleted.
   */
  controllerManager?: boolean;
  /** Log every request (user, verb, resource, answer) to `auditLog`, kube-apiserver's JSON-lines audit log. */
  audit?: boolean;
  /** How long each server may take to become ready, and the CRDs to be served (default 120000 ms each). */
  startTimeoutMs?: number;
  /** Progress lines (starting etcd, kube-apiserver ready after N s...). */
  log?: (line: string) => void;
}

export interface RealKube {
  /** `https://127.0.0.1:PORT`. */
  readonly url: string;
  /** The PEM of the CA that signed the serving certificate, to trust it (the file: `caFile`). */
  readonly caCertificate: string;
  readonly caFile: string;
  /**
   * The PEM of the front-proxy CA (--requestheader-client-ca-file) that signed the client certificate
   * kube-apiserver proxies to aggregated servers with; also in kube-system/extension-apiserver-authentication.
   */
  readonly frontProxyCaCertificate: string;
  /** A token of a user in `system:masters`. */
  readonly adminToken: string;
  /** `--service-account-issuer`: the `iss` of service-account tokens and the OIDC discovery base. */
  readonly issuer: string;
  readonly versions: { kube: string; etcd: string };
  /** The process ids, each the leader of its own process group. */
  readonly pids: { etcd: number; kubeApiserver: number; kubeControllerManager: number | undefined };
  /** With `audit`: the audit log, one `audit.k8s.io/v1` Event per line, level Metadata (see src/kube/audit.ts). */
  readonly auditLog: string | undefined;
  /** The temporary folder of certificates, keys, token file, etcd data and logs; removed by stop(). */
  readonly dir: string;
  /** A kubeconfig (YAML text) for this server; the admin's unless `token` is given. */
  kubeConfig(options?: KubeConfigOptions): string;
  /** Writes that kubeconfig to a file (mode 0600). */
  writeKubeConfig(path: string, options?: KubeConfigOptions): Promise<void>;
  /** Stops the servers, last started first (SIGTERM to their groups, SIGKILL after 10 s), and removes `dir`. */
  stop(): Promise<void>;
}

/**
 * Starts a real control plane for tests, as controller-runtime's envtest does: etcd and
 * kube-apiserver (built by provision-kube.sh) on free loopback ports, with generated certificates,
 * RBAC, a static token file and service-account token issuance. Call stop() when done.
 */
export async function startRealKube(options: RealKubeOptions = {}): Promise<RealKube> {
  const binaries = requireKubeBinaries();
  const log = options.log ?? (() => undefined);
  const timeoutMs = options.startTimeoutMs ?? 120_000;
  const adminToken = randomBytes(24).toString('hex');
  const controllerManagerToken = randomBytes(24).toString('hex');
  const tokens =
    tokenFileText([
      { token: adminToken, user: ADMIN_USER, uid: ADMIN_USER, groups: ['system:masters'] },
      ...(options.controllerManager
        ? [{ token: controllerManagerToken, user: CONTROLLER_MANAGER_USER, uid: CONTROLLER_MANAGER_USER }]
        : []),
      ...(options.tokens ?? []),
    ]) + (options.tokenAuthFile === undefined ? '' : await readTokenAuthFile(options.tokenAuthFile));
  const dir = await mkdtemp(join(tmpdir(), 'keymaster-real-kube-'));
  const servers: ServerProcess[] = [];
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      for (const server of servers.reverse()) await server.stop();
      await rm(dir, { recursive: true, force: true });
    })());
  try {
    const tokenFile = join(dir, 'tokens.csv');
    await writeFile(tokenFile, tokens, { mode: 0o600 });
    await mkdir(join(dir, 'apiserver-certs'));
    const pki = await generatePki(dir);
    const started = Date.now();
    const seconds = (): string => ((Date.now() - started) / 1000).toFixed(1);

    log(`starting etcd ${binaries.etcdVersion}`);
    const etcd = await startEtcd(binaries.etcd, dir, timeoutMs);
    servers.push(etcd.server);
    log(`etcd ready at ${etcd.url} after ${seconds()} s; starting kube-apiserver ${binaries.kubeVersion}`);

    const audit = options.audit ? await auditLogFlags(dir) : undefined;
    const { kubeApiserver, url, client } = await startOnFreePorts(async () => {
      const [port] = (await freePorts(1)) as [number];
      const url = `https://127.0.0.1:${port}`;
      const kubeApiserver = await ServerProcess.start(
        'kube-apiserver',
        binaries.kubeApiserver,
        [...apiserverArgs({ dir, pki, etcdUrl: etcd.url, port, issuer: url, tokenFile }), ...(audit?.flags ?? [])],
        join(dir, 'kube-apiserver.log'),
      );
      const client = new AdminClient(url, pki.caCertificate, adminToken);
      await kubeApiserver.waitReadyOrStop(timeoutMs, async () => (await client.send('GET', '/readyz')).status === 200);
      return { kubeApiserver, url, client };
    });
    servers.push(kubeApiserver);
    log(`kube-apiserver ready on ${url} after ${seconds()} s`);

    const kubeConfig = (config: KubeConfigOptions = {}): string =>
      kubeConfigYaml(url, { name: 'real-kube', token: adminToken, ...config }, pki.caCertificate);
    // Before kube-controller-manager: the resourcequota controller counts the kinds it discovers at
    // start at once, those that come later only after its next discovery (30 s) and quota resync.
    if (options.crds !== undefined) {
      await installCrds(client, options.crds, timeoutMs);
      log(`CRDs from ${options.crds} served after ${seconds()} s`);
    }
    let controllerManager: ServerProcess | undefined;
    if (options.controllerManager) {
      const kubeconfig = join(dir, 'kube-controller-manager.kubeconfig');
      await writeFile(kubeconfig, kubeConfig({ name: 'kube-controller-manager', token: controllerManagerToken }), {
        mode: 0o600,
      });
      log(`starting kube-controller-manager ${binaries.kubeVersion}`);
      controllerManager = await startControllerManager(
        binaries.kubeControllerManager,
        kubeconfig,
        join(dir, 'kube-controller-manager.log'),
        timeoutMs,
        client,
      );
      servers.push(controllerManager);
      log(`kube-controller-manager ready after ${seconds()} s`);
    }
    await createNamespaces(client, options.namespaces ?? []);

    return {
      url,
      caCertificate: pki.caCertificate,
      caFile: pki.caFile,
      frontProxyCaCertificate: pki.frontProxyCaCertificate,
      adminToken,
      issuer: url,
      versions: { kube: binaries.kubeVersion, etcd: binaries.etcdVersion },
      pids: { etcd: etcd.server.pid, kubeApiserver: kubeApiserver.pid, kubeControllerManager: controllerManager?.pid },
      auditLog: audit?.log,
      dir,
      kubeConfig,
      writeKubeConfig: (path, config) => writeFile(path, kubeConfig(config), { mode: 0o600 }),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
