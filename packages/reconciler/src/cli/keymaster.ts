// Each command's modules load when it runs, not before: the AWS SDK and client-node take seconds to
// load, and --help, --version or a typo need neither.
import { KeymasterError } from '@keymaster/api';
import type { kubeAccessError } from '../kube/access-error.js';
import { KEYMASTER_VERSION } from '../version.js';

const USAGE = `Usage: keymaster <command> [flags]

Commands:
  run       run the controller (keymaster run --help for its flags)
  demo      the emulators, the examples and the controller, with a live table of the clusters (dev only)
  emulate   start the kube-emulator and the aws-emulator for a controller to run against (dev only)
  plan      the tag plan of a cluster, a namespace or all, written nowhere (the dry run)
  explain   why a cluster is as it is: its identity chain link by link, its tags, events, the fix

keymaster --version (or keymaster run --version) prints the version.
The dev-only commands run from a clone of the repository (pnpm install, then pnpm keymaster demo).
`;

const printVersion = () => console.log(`keymaster ${KEYMASTER_VERSION}`);

/** Runs until SIGTERM or SIGINT, then stops gracefully and exits 0; exits 1 if leadership is lost. */
async function run(args: string[]): Promise<void> {
  const { parseRunFlags, runHelp } = await import('./flags.js');
  if (args.includes('--help') || args.includes('-h')) {
    console.log(runHelp());
    return;
  }
  if (args.includes('--version')) {
    printVersion();
    return;
  }
  const { startController } = await import('./run.js');
  const started: { controller?: Awaited<ReturnType<typeof startController>> } = {};
  // Handled from the start: a signal that comes while the controller starts (it logs "reconciling"
  // before it has finished) stops it once started, where Node's default would kill it.
  let early: string | undefined;
  let stopping = false;
  const stop = (signal: string) => {
    const { controller } = started;
    if (!controller) {
      early ??= signal;
      return;
    }
    if (stopping) return;
    stopping = true;
    const { logger } = controller;
    logger.info('stopping', { signal });
    controller.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error('stop failed', { error });
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  started.controller = await startController(parseRunFlags(args), {
    onLeadershipLost: () => process.exit(1),
  });
  if (early) stop(early);
}

export type Command = (args: string[]) => Promise<void>;

/** The production binary has no demo: it depends on the emulators, which only a checkout has (packages/devtools). */
const devOnly =
  (command: string): Command =>
  () =>
    Promise.reject(
      new KeymasterError(
        'ERR_KEYMASTER_DEV_COMMAND',
        `"keymaster ${command}" is a development command: this keymaster (the production build) does not have it`,
        {
          hint: `Run it from a clone of the repository: pnpm install, then pnpm keymaster ${command} (packages/devtools).`,
        },
      ),
    );

async function main(commands: Record<string, Command>, [command = '', ...args]: string[]): Promise<void> {
  if (command === '--version' || command === 'version') {
    printVersion();
    return;
  }
  const handler = commands[command];
  if (!handler) {
    // Asked for, the usage is the output (stdout, as kubectl prints its help); after a mistake, the error's detail.
    const asked = command === '' || command === '--help' || command === '-h' || command === 'help';
    if (asked) process.stdout.write(USAGE);
    else process.stderr.write(`keymaster: unknown command "${command}"\n\n${USAGE}`);
    process.exitCode = asked ? 0 : 2;
    return;
  }
  await handler(args);
}

/**
 * The `keymaster` command line: the production commands, and `devCommands` (demo, emulate) when the
 * caller has them, else a refusal that says where they are.
 */
export async function runKeymaster(
  argv: string[],
  devCommands: { demo?: Command; emulate?: Command } = {},
): Promise<void> {
  // The SDK warns that future versions need Node 22; this project runs on Node 20 on purpose, with pinned SDK versions.
  process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';
  const commands = {
    run,
    demo: devCommands.demo ?? devOnly('demo'),
    emulate: devCommands.emulate ?? devOnly('emulate'),
    plan: async (args: string[]) => (await import('./plan.js')).plan(args),
    explain: async (args: string[]) => (await import('./explain.js')).explain(args),
  };
  await main(commands, argv).catch(async (error: unknown) =>
    exitOnError(error, (await import('../kube/access-error.js')).kubeAccessError),
  );
}

/**
 * A failure ends the command with one line saying what failed and one with the fix, never a stack:
 * exit 2 for what the user can fix (a flag, a file, the API server, RBAC), 1 for anything else.
 */
function exitOnError(error: unknown, accessError: typeof kubeAccessError): never {
  const known = error instanceof KeymasterError ? error : accessError(error, 'call the API server');
  if (known) {
    process.stderr.write(`keymaster: ${known.message}\n${known.hint ? `hint: ${known.hint}\n` : ''}`);
    process.exit(2);
  }
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  process.stderr.write(
    `keymaster: unexpected error: ${message}\nhint: This is a bug in keymaster: please report it, with the command you ran.\n`,
  );
  process.exit(1);
}
