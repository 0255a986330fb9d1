import { parseArgs } from 'node:util';
import { startKubeEmulator, type KubeEmulatorOptions } from './emulator.js';
import { KubeEmulatorError } from './errors.js';

const USAGE = `usage: kube-emulator [--port N] [--host 127.0.0.1] [--kubeconfig PATH] [--crds DIR] [--token-auth-file CSV] [--authorization-mode AlwaysAllow|RBAC] [--tls]`;

function portOf(value: string | undefined): number {
  if (value === undefined) return 0;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new KubeEmulatorError(
      'ERR_KEYMASTER_KUBE_EMULATOR_USAGE',
      `--port must be a number from 0 to 65535, not ${JSON.stringify(value)}`,
      {
        hint: '--port 0 picks a free port',
      },
    );
  }
  return port;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      kubeconfig: { type: 'string' },
      crds: { type: 'string' },
      'token-auth-file': { type: 'string' },
      'authorization-mode': { type: 'string' },
      tls: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const emulator = await startKubeEmulator({
    port: portOf(values.port),
    ...(values.host !== undefined ? { host: values.host } : {}),
    ...(values.crds !== undefined ? { crds: values.crds } : {}),
    ...(values['token-auth-file'] !== undefined ? { tokenAuthFile: values['token-auth-file'] } : {}),
    ...(values['authorization-mode'] !== undefined
      ? { authorization: values['authorization-mode'] as KubeEmulatorOptions['authorization'] }
      : {}),
    ...(values.tls ? { tls: true } : {}),
  });
  if (values.kubeconfig !== undefined) await emulator.writeKubeConfig(values.kubeconfig);
  const stop = (): void => {
    emulator.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  process.stdout.write(`listening on ${emulator.url}\n`);
}

main().catch((error: unknown) => {
  if (error instanceof KubeEmulatorError) {
    process.stderr.write(`kube-emulator: ${error.message}${error.hint ? `\nhint: ${error.hint}` : ''}\n`);
  } else if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS')) {
    process.stderr.write(`kube-emulator: ${error.message}\n${USAGE}\n`);
  } else {
    process.stderr.write(`kube-emulator: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  }
  process.exit(2);
});
