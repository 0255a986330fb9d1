import { parseArgs } from 'node:util';
import { startKubeEmulator, type KubeEmulatorOptions } from './emulator.js';
import { KubeEmulatorError } from './errors.js';

const USAGE = `usage: kube-emulator [--port N] [--host 127.0.0.1] [--kubeconfig PATH] [--crds DIR] [--token-auth-file CSV] [--authorization-mode AlwaysAllow|RBAC] [--anonymous-auth true|false] [--tls]
  [--service-account-issuer URL] [--service-account-jwks-uri URL] [--api-audiences A,B] [--service-account-max-token-expiration DURATION]`;

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

/** A Go duration of hours, minutes and seconds (`48h`, `90m`, `1h30m0s`), as kube-apiserver's flag takes it, in seconds. */
function durationOf(value: string): number {
  const match = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(value);
  if (!match || value === '') {
    throw new KubeEmulatorError(
      'ERR_KEYMASTER_KUBE_EMULATOR_USAGE',
      `--service-account-max-token-expiration must be a duration such as 48h or 90m, not ${JSON.stringify(value)}`,
      { hint: 'write hours, minutes and seconds as Go does: 24h, 1h30m, 3600s' },
    );
  }
  const [, hours = '0', minutes = '0', seconds = '0'] = match;
  return Number(hours) * 3600 + Number(minutes) * 60 + Number(seconds);
}

function booleanOf(value: string): boolean {
  if (value === 'true' || value === 'false') return value === 'true';
  throw new KubeEmulatorError(
    'ERR_KEYMASTER_KUBE_EMULATOR_USAGE',
    `--anonymous-auth must be true or false, not ${JSON.stringify(value)}`,
    {
      hint: '--anonymous-auth false answers requests without a token 401, as kube-apiserver does with that flag',
    },
  );
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
      'anonymous-auth': { type: 'string' },
      tls: { type: 'boolean' },
      'service-account-issuer': { type: 'string' },
      'service-account-jwks-uri': { type: 'string' },
      'api-audiences': { type: 'string' },
      'service-account-max-token-expiration': { type: 'string' },
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
    ...(values['anonymous-auth'] !== undefined ? { anonymousAuth: booleanOf(values['anonymous-auth']) } : {}),
    ...(values.tls ? { tls: true } : {}),
    ...(values['service-account-issuer'] !== undefined
      ? { serviceAccountIssuer: values['service-account-issuer'] }
      : {}),
    ...(values['service-account-jwks-uri'] !== undefined
      ? { serviceAccountJwksUri: values['service-account-jwks-uri'] }
      : {}),
    ...(values['api-audiences'] !== undefined ? { apiAudiences: values['api-audiences'].split(',') } : {}),
    ...(values['service-account-max-token-expiration'] !== undefined
      ? { serviceAccountMaxTokenExpirationSeconds: durationOf(values['service-account-max-token-expiration']) }
      : {}),
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
