import { parseArgs } from 'node:util';
import { TestEnvError } from '../errors.js';
import { startMoto } from './server.js';

const USAGE = 'usage: moto [--port N] [--host 127.0.0.1]';

function portOf(text: string | undefined): number {
  const port = text === undefined ? 0 : Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new TestEnvError(
      'ERR_KEYMASTER_TESTENV_USAGE',
      `--port must be a whole number from 0 to 65535, got ${text}`,
      {
        hint: 'pass --port 0 for a free port',
      },
    );
  }
  return port;
}

/**
 * `pnpm moto`: the provisioned moto_server until SIGTERM/SIGINT. The first stdout line is
 * `listening on http://HOST:PORT`, printed once moto answers.
 */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const port = portOf(values.port);
  // Listened to from the start: a signal during start-up stops moto as soon as it is up.
  const state: { signal?: NodeJS.Signals } = {};
  const signalled = new Promise<void>((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.on(signal, () => {
        state.signal = signal;
        resolve();
      });
    }
  });
  const moto = await startMoto({ port, ...(values.host !== undefined ? { host: values.host } : {}) });
  try {
    if (state.signal !== undefined) return;
    process.stdout.write(`listening on ${moto.url}\n`);
    const died = await Promise.race([signalled.then(() => undefined), moto.exited()]);
    if (died !== undefined) {
      throw new TestEnvError('ERR_KEYMASTER_TESTENV_EXITED', `moto_server exited on its own (${died})`, {
        hint: 'start it again; if it keeps exiting, run moto_server of the cache dir by hand to see why',
      });
    }
  } finally {
    await moto.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    if (error instanceof TestEnvError) {
      process.stderr.write(`moto: ${error.message}${error.hint ? `\nhint: ${error.hint}` : ''}\n`);
    } else if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`moto: ${error.message}\n${USAGE}\n`);
    } else {
      process.stderr.write(`moto: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    }
    process.exit(2);
  },
);
