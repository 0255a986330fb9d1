import { parseArgs } from 'node:util';
import { AwsEmulatorError } from './errors.js';
import { startAwsEmulator } from './emulator.js';

const USAGE = 'usage: aws-emulator [--port N] [--host 127.0.0.1] [--world FILE] [--quotas aws|off]';

/** `pnpm aws-emulator`: runs the emulator until SIGINT or SIGTERM. The first stdout line is `listening on URL`. */
async function main(): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        world: { type: 'string' },
        quotas: { type: 'string' },
        help: { type: 'boolean' },
      },
      strict: true,
    }));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    process.exit(2);
  }
  if (values.help === true) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`--port must be a whole number from 0 to 65535, got ${values.port!}\n${USAGE}\n`);
    process.exit(2);
  }
  if (values.quotas !== undefined && values.quotas !== 'aws' && values.quotas !== 'off') {
    process.stderr.write(`--quotas must be aws or off, got ${values.quotas}\n${USAGE}\n`);
    process.exit(2);
  }
  const emulator = await startAwsEmulator({
    port,
    host: values.host ?? '127.0.0.1',
    ...(values.world ? { world: values.world } : {}),
    ...(values.quotas === undefined ? {} : { quotas: values.quotas }),
  });
  const stop = () => {
    emulator.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  // Handlers first: whoever reads the line below may signal at once.
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  process.stdout.write(`listening on ${emulator.url}\n`);
}

main().catch((error: unknown) => {
  if (error instanceof AwsEmulatorError) {
    process.stderr.write(`aws-emulator: ${error.message}\n${error.hint ? `hint: ${error.hint}\n` : ''}`);
  } else {
    process.stderr.write(`aws-emulator: ${(error as Error).message}\n`);
  }
  process.exit(1);
});
