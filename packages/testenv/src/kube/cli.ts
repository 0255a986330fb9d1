import { parseArgs } from 'node:util';
import { TestEnvError } from '../errors.js';
import { startRealKube, type RealKube } from './real-kube.js';

const USAGE = 'usage: real-kube --kubeconfig PATH [--crds DIR] [--controller-manager]';

async function writeKubeConfig(kube: RealKube, path: string): Promise<void> {
  try {
    await kube.writeKubeConfig(path);
  } catch (error) {
    throw new TestEnvError('ERR_KEYMASTER_TESTENV_USAGE', `cannot write the kubeconfig ${path}`, {
      hint: 'pass a path in a folder that exists and that you can write to',
      cause: error,
    });
  }
}

/**
 * `pnpm real-kube`: a real etcd + kube-apiserver until SIGTERM/SIGINT. The first stdout line is
 * `listening on https://HOST:PORT`; progress goes to stderr.
 */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      kubeconfig: { type: 'string' },
      crds: { type: 'string' },
      'controller-manager': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (values.kubeconfig === undefined) {
    throw new TestEnvError('ERR_KEYMASTER_TESTENV_USAGE', '--kubeconfig is required', {
      hint: 'pass the path where the admin kubeconfig is written, e.g. --kubeconfig /tmp/real-kube.yaml',
    });
  }
  // Listened to from the start: a signal during start-up stops the servers as soon as they are up.
  const state: { signal?: NodeJS.Signals } = {};
  const signalled = new Promise<void>((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.on(signal, () => {
        state.signal = signal;
        resolve();
      });
    }
  });
  const kube = await startRealKube({
    ...(values.crds !== undefined ? { crds: values.crds } : {}),
    namespaces: ['keymaster-system'],
    controllerManager: values['controller-manager'] === true,
    log: (line) => process.stderr.write(`real-kube: ${line}\n`),
  });
  try {
    if (state.signal === undefined) {
      await writeKubeConfig(kube, values.kubeconfig);
      process.stdout.write(`listening on ${kube.url}\n`);
      await signalled;
    }
    process.stderr.write(`real-kube: ${state.signal ?? 'signal'} received; stopping the servers\n`);
  } finally {
    await kube.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    if (error instanceof TestEnvError) {
      process.stderr.write(`real-kube: ${error.message}${error.hint ? `\nhint: ${error.hint}` : ''}\n`);
    } else if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`real-kube: ${error.message}\n${USAGE}\n`);
    } else {
      process.stderr.write(`real-kube: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    }
    process.exit(2);
  },
);
