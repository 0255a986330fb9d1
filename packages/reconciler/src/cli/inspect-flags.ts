import { KeymasterError } from '@keymaster/api';
import { parseDuration } from '../runtime/duration.js';
import { INSPECT_GROUP } from '../inspect-api/resources.js';
import type { Output } from '../inspect/output-format.js';
import type { Targets } from '../inspect/targets.js';
import { commandHelp, parseCommandLine, type FlagSpecs } from './command-flags.js';
import { tenantLabelFlag } from '../webhooks/flags.js';
import { FlagError, RUN_FLAGS } from './flags.js';

/**
 * The flags of `keymaster plan` and `keymaster explain`. Those that shape what the controller does
 * are the controller's own (same names, defaults and meaning), so that a command acts as the
 * controller would. As in kubectl, `-n/--namespace` is the namespace of the clusters; the
 * controller's namespace (`keymaster run --namespace`) is `--controller-namespace` here.
 */
export const INSPECT_FLAGS = {
  namespace: { type: 'string', short: 'n', help: 'the AWSClusters of this namespace (with NAME: that one)' },
  'all-namespaces': { type: 'boolean', short: 'A', help: 'the AWSClusters of every namespace' },
  output: { type: 'string', short: 'o', default: 'table', help: 'output format' },
  kubeconfig: RUN_FLAGS.kubeconfig,
  local: {
    type: 'boolean',
    help: "work on this machine, with the AWS environment's credentials, instead of asking the running controller (development; the flags below apply to it only)",
  },
  'controller-namespace': { ...RUN_FLAGS.namespace, help: "the controller's namespace (keymaster run --namespace)" },
  'sts-region': RUN_FLAGS['sts-region'],
  'tag-layer-grace-period': RUN_FLAGS['tag-layer-grace-period'],
  'tenant-label': RUN_FLAGS['tenant-label'],
  help: { type: 'boolean', short: 'h', help: 'show this help' },
} satisfies FlagSpecs;

export interface InspectFlags<O extends Output = Output> {
  targets: Targets;
  output: O;
  kubeconfig: string | undefined;
  /** --local: not the controller's inspect API, but this process with the AWS environment. */
  local: boolean;
  /** The controller's namespace. */
  controllerNamespace: string;
  stsRegion: string;
  tagLayerGracePeriodMs: number;
  /** On identities: the tenant whose accounts they may act in. */
  tenantLabel: string;
}

/** `NAMESPACE/NAME`, `NAME -n NAMESPACE`, `-n NAMESPACE` or `-A`; anything else is refused with the forms that work. */
function targetsOf(
  command: string,
  positionals: readonly string[],
  namespace: string | undefined,
  all: boolean,
  single: boolean,
): Targets {
  const forms = single
    ? 'NAMESPACE/NAME (or NAME -n NAMESPACE)'
    : 'NAMESPACE/NAME (or NAME -n NAMESPACE), -n NAMESPACE or -A';
  const refuse = (problem: string) =>
    new KeymasterError('ERR_KEYMASTER_INVALID_ARGUMENT', `keymaster ${command}: ${problem}`, {
      hint: `Name the clusters as ${forms}.`,
    });
  if (positionals.length > 1) throw refuse(`expected one cluster, got ${positionals.length}: ${positionals.join(' ')}`);
  const [given] = positionals;
  if (all) {
    if (single) throw refuse('-A is for `keymaster plan`: this command takes one cluster');
    if (given !== undefined || namespace !== undefined)
      throw refuse('-A names every cluster: give no cluster and no -n with it');
    return { all: true };
  }
  if (given === undefined) {
    if (namespace !== undefined && !single) return { namespace };
    throw refuse(single ? 'no cluster named' : 'no cluster named and no -n or -A');
  }
  const parts = given.split('/');
  if (parts.length === 1 && namespace !== undefined && given !== '') return { cluster: { namespace, name: given } };
  const [ns = '', name = ''] = parts;
  if (parts.length !== 2 || ns === '' || name === '')
    throw refuse(`"${given}" is not NAMESPACE/NAME${parts.length === 1 ? ' (or give -n NAMESPACE)' : ''}`);
  if (namespace !== undefined && namespace !== ns)
    throw refuse(`the cluster ${given} is not in the namespace -n ${namespace}`);
  return { cluster: { namespace: ns, name } };
}

/**
 * `--cluster-namespace` was -n's long name before -n/--namespace took kubectl's meaning; it fails
 * rather than warns, so that a script that also passes the old `--namespace` (then the controller's)
 * is not run against the wrong namespace without its author noticing.
 */
function refuseRenamedFlag(command: string, args: readonly string[]): void {
  const old = args.find((arg) => arg === '--cluster-namespace' || arg.startsWith('--cluster-namespace='));
  if (old === undefined) return;
  throw new KeymasterError(
    'ERR_KEYMASTER_INVALID_FLAG',
    `keymaster ${command}: --cluster-namespace is now -n/--namespace`,
    {
      hint: "Use -n NAMESPACE (or --namespace NAMESPACE) for the clusters' namespace, and --controller-namespace for the controller's.",
    },
  );
}

/** Parses `keymaster plan` (`single: false`) or `keymaster explain` (`single: true`) arguments; undefined for --help. */
export function parseInspectFlags<O extends Output>(
  command: string,
  args: string[],
  single: boolean,
  outputs: readonly O[],
): InspectFlags<O> | undefined {
  refuseRenamedFlag(command, args);
  const { values, positionals } = parseCommandLine(command, INSPECT_FLAGS, args);
  if (values.help) return undefined;
  const output = values.output;
  if (!(outputs as readonly string[]).includes(output))
    throw new FlagError('output', output, `must be one of ${outputs.join(', ')}`, `Use -o ${outputs.join(', -o ')}.`);
  const grace = values['tag-layer-grace-period'];
  const tagLayerGracePeriodMs = parseDuration(grace);
  if (tagLayerGracePeriodMs === undefined)
    throw new FlagError('tag-layer-grace-period', grace, 'is not a Go duration', 'Write it like 0s, 10m or 1h.');
  return {
    targets: targetsOf(command, positionals, values.namespace, values['all-namespaces'] ?? false, single),
    output: output as O,
    kubeconfig: values.kubeconfig,
    local: values.local ?? false,
    controllerNamespace: values['controller-namespace'],
    stsRegion: values['sts-region'],
    tagLayerGracePeriodMs,
    tenantLabel: tenantLabelFlag(values['tenant-label']),
  };
}

export const inspectHelp = (usage: string, description: string, outputs: readonly Output[]): string =>
  commandHelp(
    usage,
    `${description}\n\nThe running controller answers, through the API server (its inspect API, ${INSPECT_GROUP}): your RBAC decides which clusters you may ask about, and you need no AWS credentials. Where the API is not installed, or with --local, this command works on this machine: the AWS endpoint and the controller's own credentials then come from the standard AWS environment, as for \`keymaster run\` (AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, AWS_PROFILE, web identity, ...). Also \`kubectl keymaster\` (a kubectl plugin: the executable kubectl-keymaster on PATH).`,
    { ...INSPECT_FLAGS, output: { ...INSPECT_FLAGS.output, help: `output format: ${outputs.join(', ')}` } },
  );
