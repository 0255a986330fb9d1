import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { kubeConfigYaml, readCrdFolder, type KubeConfigOptions } from '@keymaster/kube-emulator';
import { TestEnvError } from '../errors.js';
import { auditLogFlags } from './audit.js';
import { requireKubeBinaries, type KubeBinaries } from './binaries.js';
import { AdminClient, type Response } from './client.js';
import { generatePki, type Pki } from './pki.js';
import { freePorts } from './ports.js';
import { ServerProcess } from './process.js';
import { ADMIN_USER, tokenFileText, type TokenUser } from './tokens.js';

export interface RealKubeOptions {
  /** A folder of CRD YAML files to install; start returns once every CRD is Established. */
  crds?: string;
  /** Users of the static token file, besides the admin (e.g. a tenant, to act under real RBAC). */
  tokens?: TokenUser[];
  /** A `--token-auth-file` CSV whose users are added too (the kube-emulator's option of that name). */
  tokenAuthFile?: string;
  /** Namespaces to create once the server is ready (`pnpm real-kube` creates keymaster-system). */
  namespaces?: string[];
  /** Log every request (user, verb, resource, answer) to `auditLog`, kube-apiserver's JSON-lines audit log. */
  audit?: boolean;
  /** How long etcd, then kube-apiserver, may take to become ready (default 120000 ms each). */
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
  /** A token of a user in `system:masters`. */
  readonly adminToken: string;
  /** `--service-account-issuer`: the `iss` of service-account tokens and the OIDC discovery base. */
  readonly issuer: string;
  readonly versions: { kube: string; etcd: string };
  /** The process ids, each the leader of its own process group. */
  readonly pids: { etcd: number; kubeApiserver: number };
  /** With `audit`: the audit log, one `audit.k8s.io/v1` Event per line, level Metadata (see src/kube/audit.ts). */
  readonly auditLog: string | undefined;
  /** The temporary folder of certificates, keys, token file, etcd data and logs; removed by stop(). */
  readonly dir: string;
  /** A kubeconfig (YAML text) for this server; the admin's unless `token` is given. */
  kubeConfig(options?: KubeConfigOptions): string;
  /** Writes that kubeconfig to a file (mode 0600). */
  writeKubeConfig(path: string, options?: KubeConfigOptions): Promise<void>;
  /** Stops kube-apiserver then etcd (SIGTERM to their groups, SIGKILL after 10 s) and removes `dir`. */
  stop(): Promise<void>;
}

const STEP_MS = 100;

function etcdArgs(dir: string, clientPort: number, peerPort: number): string[] {
  const client = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  return [
    '--name=testenv',
    `--data-dir=${join(dir, 'etcd')}`,
    `--listen-client-urls=${client}`,
    `--advertise-client-urls=${client}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=testenv=${peer}`,
    // Throwaway data: skipping fsync makes writes fast, as envtest does.
    '--unsafe-no-fsync=true',
    '--log-level=warn',
  ];
}

/** The flags envtest starts kube-apiserver with, plus real RBAC and service-account token issuance. */
function apiserverArgs(dir: string, pki: Pki, etcdPort: number, port: number, issuer: string): string[] {
  return [
    `--etcd-servers=http://127.0.0.1:${etcdPort}`,
    `--secure-port=${port}`,
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    `--cert-dir=${join(dir, 'apiserver-certs')}`,
    `--tls-cert-file=${pki.servingCertFile}`,
    `--tls-private-key-file=${pki.servingKeyFile}`,
    `--client-ca-file=${pki.caFile}`,
    '--authorization-mode=Node,RBAC',
    `--token-auth-file=${join(dir, 'tokens.csv')}`,
    `--service-account-issuer=${issuer}`,
    `--service-account-key-file=${pki.serviceAccountPublicKeyFile}`,
    `--service-account-signing-key-file=${pki.serviceAccountKeyFile}`,
    `--api-audiences=${issuer}`,
    '--service-cluster-ip-range=10.0.0.0/24',
    // No kubelet or controller-manager: nothing would serve the `kubernetes` Service's endpoints.
    '--endpoint-reconciler-type=none',
  ];
}

async function readTokenAuthFile(path: string): Promise<string> {
  try {
    const text = await readFile(path, 'utf8');
    return text.endsWith('\n') || text === '' ? text : `${text}\n`;
  } catch (error) {
    throw new TestEnvError('ERR_KEYMASTER_TESTENV_TOKENS', `cannot read tokenAuthFile ${path}`, {
      hint: 'pass an existing CSV file in the kube-apiserver --token-auth-file format',
      cause: error,
    });
  }
}

/** Polls `ready` until it says yes; fails at once with the log's tail if the process exits first. */
async function waitReady(server: ServerProcess, timeoutMs: number, ready: () => Promise<boolean>): Promise<void> {
  let exitCode: number | string | undefined;
  void server.exited().then((code) => (exitCode = code));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exitCode !== undefined) {
      throw new TestEnvError(
        'ERR_KEYMASTER_TESTENV_START',
        `${server.name} exited (${exitCode}) while starting; the end of its log:\n${server.logTail()}`,
        {
          hint: 'the log says why; if the binary is broken, delete it and run packages/testenv/scripts/provision-kube.sh',
        },
      );
    }
    if (await ready().catch(() => false)) return;
    if (Date.now() > deadline) {
      throw new TestEnvError(
        'ERR_KEYMASTER_TESTENV_START',
        `${server.name} was not ready after ${timeoutMs / 1000} s; the end of its log:\n${server.logTail()}`,
        { hint: 'a loaded machine may need a longer startTimeoutMs' },
      );
    }
    await sleep(STEP_MS);
  }
}

function etcdHealthy(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    get({ host: '127.0.0.1', port, path: '/health', timeout: 2000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve(res.statusCode === 200 && /"health":\s*"true"/.test(Buffer.concat(chunks).toString())),
      );
    }).on('error', () => resolve(false));
  });
}

interface CrdSpec {
  group: string;
  names: { plural: string };
  versions: { name: string; served: boolean }[];
}

function established(body: string): boolean {
  const { status } = JSON.parse(body) as { status?: { conditions?: { type: string; status: string }[] } };
  return status?.conditions?.some(({ type, status }) => type === 'Established' && status === 'True') ?? false;
}

async function installCrds(client: AdminClient, folder: string, timeoutMs: number): Promise<void> {
  const crds = readCrdFolder(folder);
  for (const { file, crd } of crds) {
    const response = await client.send('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
    if (response.status !== 201) {
      throw new TestEnvError(
        'ERR_KEYMASTER_TESTENV_CRDS',
        `${file}: kube-apiserver refused the CRD (${response.status}): ${response.body}`,
        {
          hint: 'fix the CustomResourceDefinition in that file',
        },
      );
    }
  }
  const deadline = Date.now() + timeoutMs;
  for (const { file, crd } of crds) {
    const { metadata, spec } = crd as unknown as { metadata: { name: string }; spec: CrdSpec };
    const served = (ok: (response: Response) => boolean, path: string): Promise<void> =>
      pollUntil(
        client,
        path,
        ok,
        deadline,
        `${file}: the CRD ${metadata.name} was not served after ${timeoutMs / 1000} s`,
      );
    await served(
      (response) => response.status === 200 && established(response.body),
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${metadata.name}`,
    );
    // Established is not enough: until the resource's storage has initialized, requests get 429.
    const version = spec.versions.find(({ served }) => served)?.name;
    if (version)
      await served(
        (response) => response.status === 200,
        `/apis/${spec.group}/${version}/${spec.names.plural}?limit=1`,
      );
  }
}

/** GETs `path` until `ok` accepts the answer; after `deadline`, fails with `message` and the last answer. */
async function pollUntil(
  client: AdminClient,
  path: string,
  ok: (response: Response) => boolean,
  deadline: number,
  message: string,
): Promise<void> {
  for (;;) {
    const response = await client.send('GET', path);
    if (ok(response)) return;
    if (Date.now() > deadline) {
      throw new TestEnvError('ERR_KEYMASTER_TESTENV_CRDS', message, {
        hint: `GET ${path} answered ${response.status}: ${response.body}`,
      });
    }
    await sleep(STEP_MS);
  }
}

async function createNamespaces(client: AdminClient, names: readonly string[]): Promise<void> {
  for (const name of names) {
    const response = await client.send('POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name },
    });
    if (response.status !== 201 && response.status !== 409) {
      throw new TestEnvError(
        'ERR_KEYMASTER_TESTENV_NAMESPACE',
        `cannot create the namespace ${JSON.stringify(name)} (${response.status}): ${response.body}`,
        {
          hint: 'namespace names are DNS labels: lower-case letters, digits and dashes',
        },
      );
    }
  }
}

/**
 * Starts a real control plane for tests, as controller-runtime's envtest does: etcd and
 * kube-apiserver (built by provision-kube.sh) on free loopback ports, with generated certificates,
 * RBAC, a static token file and service-account token issuance. Call stop() when done.
 */
export async function startRealKube(options: RealKubeOptions = {}): Promise<RealKube> {
  const binaries: KubeBinaries = requireKubeBinaries();
  const log = options.log ?? (() => undefined);
  const timeoutMs = options.startTimeoutMs ?? 120_000;
  const adminToken = randomBytes(24).toString('hex');
  const tokens =
    tokenFileText([
      { token: adminToken, user: ADMIN_USER, uid: ADMIN_USER, groups: ['system:masters'] },
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
    await writeFile(join(dir, 'tokens.csv'), tokens, { mode: 0o600 });
    await mkdir(join(dir, 'apiserver-certs'));
    const pki = await generatePki(dir);
    const [etcdPort, peerPort, port] = (await freePorts(3)) as [number, number, number];
    const url = `https://127.0.0.1:${port}`;
    const started = Date.now();
    const seconds = (): string => ((Date.now() - started) / 1000).toFixed(1);

    log(`starting etcd ${binaries.etcdVersion} on 127.0.0.1:${etcdPort}`);
    const etcd = await ServerProcess.start(
      'etcd',
      binaries.etcd,
      etcdArgs(dir, etcdPort, peerPort),
      join(dir, 'etcd.log'),
    );
    servers.push(etcd);
    await waitReady(etcd, timeoutMs, () => etcdHealthy(etcdPort));
    log(`etcd ready after ${seconds()} s; starting kube-apiserver ${binaries.kubeVersion} on ${url}`);

    const audit = options.audit ? await auditLogFlags(dir) : undefined;
    const kubeApiserver = await ServerProcess.start(
      'kube-apiserver',
      binaries.kubeApiserver,
      [...apiserverArgs(dir, pki, etcdPort, port, url), ...(audit?.flags ?? [])],
      join(dir, 'kube-apiserver.log'),
    );
    servers.push(kubeApiserver);
    const client = new AdminClient(url, pki.caCertificate, adminToken);
    await waitReady(kubeApiserver, timeoutMs, async () => (await client.send('GET', '/readyz')).status === 200);
    log(`kube-apiserver ready after ${seconds()} s`);

    if (options.crds !== undefined) {
      await installCrds(client, options.crds, timeoutMs);
      log(`CRDs from ${options.crds} established after ${seconds()} s`);
    }
    await createNamespaces(client, options.namespaces ?? []);

    const kubeConfig = (config: KubeConfigOptions = {}): string =>
      kubeConfigYaml(url, { name: 'real-kube', token: adminToken, ...config }, pki.caCertificate);
    return {
      url,
      caCertificate: pki.caCertificate,
      caFile: pki.caFile,
      adminToken,
      issuer: url,
      versions: { kube: binaries.kubeVersion, etcd: binaries.etcdVersion },
      pids: { etcd: etcd.pid, kubeApiserver: kubeApiserver.pid },
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
