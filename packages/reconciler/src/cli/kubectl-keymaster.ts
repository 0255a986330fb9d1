#!/usr/bin/env node
/**
 * The kubectl plugin: kubectl runs the executable `kubectl-keymaster` found on PATH for
 * `kubectl keymaster ...`, with the arguments that follow. `plan` is `keymaster plan`, `why`
 * `keymaster explain`; both read --kubeconfig, else $KUBECONFIG, as kubectl does.
 */
const USAGE = `Usage: kubectl keymaster <command> [flags]

Commands:
  plan   the tag plan of a cluster, a namespace or all, written nowhere (kubectl keymaster plan --help)
  why    why a cluster is as it is: its identity chain link by link, its tags, events, the fix

kubectl keymaster --version prints the version.
`;

const PLUGIN_COMMANDS: Record<string, string> = {
  plan: 'plan',
  why: 'explain',
  explain: 'explain',
  '--version': '--version',
  version: '--version',
};

const [command = '', ...args] = process.argv.slice(2);
const target = PLUGIN_COMMANDS[command];
if (target === undefined) {
  const asked = command === '' || command === '--help' || command === '-h' || command === 'help';
  process.stderr.write(asked ? USAGE : `kubectl keymaster: unknown command "${command}"\n\n${USAGE}`);
  process.exitCode = asked ? 0 : 2;
} else {
  // The keymaster command line, with its error handling: exit 2 with the fix for a bad argument.
  process.argv = [...process.argv.slice(0, 2), target, ...args];
  await import('./main.js');
}
