import { existsSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { ApisApi, KubeConfig } from '@kubernetes/client-node';
import { KeymasterError } from '@keymaster/api';
import { isNetworkFailure } from '@keymaster/identity';
import { PooledKubeConfig } from '../kube/pooled-kube-config.js';

/**
 * A start-up failure that is the user's to fix (a file, an address, a cluster out of reach): the CLI
 * prints it as it prints a bad flag (message and hint, no stack trace) and exits 2.
 */
export class StartupError extends KeymasterError {}

const IN_CLUSTER_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/** Where the kubeconfig comes from, in client-go's order, and the words that name it in messages. */
interface KubeConfigSource {
  /** `--kubeconfig=PATH`, `$KUBECONFIG (PATH)`, `~/.kube/config (PATH)`; empty for the in-cluster config. */
  files: { path: string; named: string }[];
  /** How to point Keymaster at another kubeconfig, for the fixes. */
  instead: string;
}

function kubeConfigSource(flag: string | undefined): KubeConfigSource | undefined {
  if (flag) return { files: [{ path: flag, named: `--kubeconfig=${flag}` }], instead: 'Pass another --kubeconfig' };
  const listed = (process.env['KUBECONFIG'] ?? '').split(delimiter).filter(Boolean);
  if (listed.length > 0)
    return {
      files: listed.map((path) => ({ path, named: `$KUBECONFIG (${path})` })),
      instead: 'Fix $KUBECONFIG, or pass --kubeconfig',
    };
  const home = join(process.env['HOME'] || homedir(), '.kube', 'config');
  if (existsSync(home))
    return {
      files: [{ path: home, named: `~/.kube/config (${home})` }],
      instead: 'Pass --kubeconfig or set $KUBECONFIG',
    };
  if (existsSync(IN_CLUSTER_TOKEN)) return { files: [], instead: 'Pass --kubeconfig' };
  return undefined;
}

/** Why a file cannot be read, in words, from Node's error code. */
function unreadable(error: NodeJS.ErrnoException): string {
  if (error.code === 'ENOENT') return 'does not exist';
  if (error.code === 'EACCES' || error.code === 'EPERM') return 'cannot be read: permission denied';
  if (error.code === 'EISDIR') return 'is a directory, not a file';
  return `cannot be read: ${error.message}`;
}

/** Reads a file a flag or variable names, or says which, why not, and the fix. */
export function readNamedFile(path: string, named: string, fix: string): string {
  try {
    if (statSync(path).isDirectory()) throw Object.assign(new Error(path), { code: 'EISDIR' });
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new StartupError('ERR_KEYMASTER_FILE_UNREADABLE', `${named}: the file ${unreadable(error as Error)}`, {
      hint: fix,
      cause: error,
    });
  }
}

/** The current context's cluster must exist: else client-node fails on the first request ("No active cluster!"). */
function checkCurrentContext(kubeConfig: KubeConfig, named: string, instead: string): void {
  const contexts = kubeConfig.getContexts().map(({ name }) => name);
  const choose = contexts.length
    ? `Choose one with \`kubectl config use-context NAME\` (contexts: ${contexts.join(', ')}), or ${instead.toLowerCase()}.`
    : `It has no contexts: is it a kubeconfig? ${instead}.`;
  const fail = (problem: string, hint: string) =>
    new StartupError('ERR_KEYMASTER_KUBECONFIG', `${named}: ${problem}`, { hint });
  const current = kubeConfig.getCurrentContext();
  if (!current) throw fail('names no current context (current-context is empty)', choose);
  const context = kubeConfig.getContextObject(current);
  if (!context) throw fail(`current-context "${current}" is not one of its contexts`, choose);
  if (!kubeConfig.getCluster(context.cluster)) {
    const clusters = kubeConfig.getClusters().map(({ name }) => name);
    throw fail(
      `context "${current}" names the cluster "${context.cluster}", which is not in the kubeconfig`,
      `Add it (\`kubectl config set-cluster ${context.cluster} --server=https://...\`) or point the context at one of its clusters${clusters.length ? ` (${clusters.join(', ')})` : ''}.`,
    );
  }
}

/**
 * The management cluster's kubeconfig: the file given, else $KUBECONFIG, ~/.kube/config or the
 * in-cluster config (client-go's order). A file missing, unreadable, not a kubeconfig, or whose current
 * context leads to no cluster is a StartupError naming it. The API server's warnings go to `onWarning`.
 */
export function loadKubeConfig(flag: string | undefined, onWarning?: (text: string) => void): KubeConfig {
  const source = kubeConfigSource(flag);
  if (!source)
    throw new StartupError(
      'ERR_KEYMASTER_KUBECONFIG',
      'no kubeconfig: no --kubeconfig, $KUBECONFIG unset, no ~/.kube/config, and not in a pod (no service account token)',
      { hint: 'Pass --kubeconfig PATH or set $KUBECONFIG (`pnpm keymaster emulate` writes one for the emulators).' },
    );
  const kubeConfig = new PooledKubeConfig(onWarning);
  if (source.files.length === 0) {
    kubeConfig.loadFromCluster();
    return kubeConfig;
  }
  for (const [index, { path, named }] of source.files.entries()) {
    const text = readNamedFile(path, named, `${source.instead}: it must name a kubeconfig file you may read.`);
    const one = new KubeConfig();
    try {
      one.loadFromString(text);
    } catch (error) {
      const reason = ((error as Error).message.split('\n')[0] ?? '').trim();
      throw new StartupError('ERR_KEYMASTER_KUBECONFIG', `${named}: not a kubeconfig: ${reason}`, {
        hint: `${source.instead}, or check the file with \`kubectl config view --kubeconfig ${path}\`.`,
        cause: error,
      });
    }
    one.makePathsAbsolute(dirname(path));
    if (index === 0) kubeConfig.loadFromOptions(one);
    else kubeConfig.mergeConfig(one);
  }
  checkCurrentContext(kubeConfig, source.files.map(({ named }) => named).join(', '), source.instead);
  return kubeConfig;
}

/** How long the API server may take to answer the start-up check. */
const API_CHECK_TIMEOUT_MS = 30_000;

/**
 * Asks the API server for its API groups (GET /apis, what any authenticated user may read) once, at
 * start: a server out of reach (refused, no such host, TLS, no answer) or refusing the kubeconfig's
 * credentials stops the start with the server and the fix, rather than informers retrying for ever.
 */
export async function checkApiServer(kubeConfig: KubeConfig): Promise<void> {
  const server = kubeConfig.getCurrentCluster()?.server ?? '(none)';
  const context = kubeConfig.getCurrentContext();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(Object.assign(new Error(`no answer within ${API_CHECK_TIMEOUT_MS / 1000}s`), { code: 'ETIMEDOUT' })),
      API_CHECK_TIMEOUT_MS,
    );
  });
  try {
    await Promise.race([kubeConfig.makeApiClient(ApisApi).getAPIVersions(), timeout]);
  } catch (error) {
    const status = (error as { code?: unknown }).code;
    const where = `the API server ${server} (kubeconfig context "${context}")`;
    if (status === 401 || status === 403)
      throw new StartupError(
        'ERR_KEYMASTER_API_SERVER_REFUSED',
        `${where} refused the kubeconfig's credentials (${status})`,
        {
          hint: 'Renew or fix the user of that context (token, client certificate, exec plugin): `kubectl get --raw /apis --kubeconfig ...` shows the same refusal.',
          cause: error,
        },
      );
    const reason = ((error as Error).message.split('\n')[0] ?? String(error)).trim();
    throw new StartupError('ERR_KEYMASTER_API_SERVER_UNREACHABLE', `${where} cannot be reached: ${reason}`, {
      hint: isNetworkFailure(error)
        ? 'Check that the cluster runs and that this host can reach that address (DNS, firewall, proxy, certificate); with the emulators, start `pnpm keymaster emulate` first and use the kubeconfig it writes.'
        : "Check the context's cluster entry (server, certificate-authority, insecure-skip-tls-verify).",
      cause: error,
    });
  } finally {
    clearTimeout(timer);
  }
}

/** Why a flag's address cannot be listened on (in use, a privileged port, not this host's), and the fix. */
export function listenFailure(flag: string, address: { host: string; port: number }, error: unknown): StartupError {
  const code = (error as NodeJS.ErrnoException).code;
  const given = `--${flag}=${address.host === '0.0.0.0' ? '' : address.host}:${address.port}`;
  const [problem, fix] =
    code === 'EADDRINUSE'
      ? [
          `port ${address.port} is in use by another process (EADDRINUSE)`,
          `Stop that process (\`ss -ltnp 'sport = :${address.port}'\` names it) or choose a free port, e.g. --${flag}=:0 for any; 0 turns it off.`,
        ]
      : code === 'EACCES'
        ? [
            `port ${address.port} needs privileges (EACCES)`,
            'Use a port from 1024 up (the defaults are :8080 and :8081).',
          ]
        : code === 'EADDRNOTAVAIL'
          ? [
              `${address.host} is not an address of this host (EADDRNOTAVAIL)`,
              `Use :${address.port} (every interface) or 127.0.0.1:${address.port}.`,
            ]
          : [`cannot listen: ${(error as Error).message}`, `Use another address, or 0 to turn it off.`];
  return new StartupError('ERR_KEYMASTER_LISTEN', `${given}: ${problem}`, { hint: fix, cause: error });
}

const checked = new Map<string | undefined, Promise<KubeConfig>>();

/**
 * The kubeconfig of `--kubeconfig` (or the usual places), its API server checked once per process:
 * asking the controller first and then working here (no inspect API) reads `/apis` once.
 */
export function checkedKubeConfig(flags: { kubeconfig?: string | undefined }): Promise<KubeConfig> {
  let kubeConfig = checked.get(flags.kubeconfig);
  if (!kubeConfig) {
    kubeConfig = (async () => {
      const loaded = loadKubeConfig(flags.kubeconfig);
      await checkApiServer(loaded);
      return loaded;
    })();
    checked.set(flags.kubeconfig, kubeConfig);
  }
  return kubeConfig;
}
