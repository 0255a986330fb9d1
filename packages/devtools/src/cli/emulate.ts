import { KeymasterError } from '@keymaster/api';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { commandHelp, parseCommandFlags, portFlag, RUN_FLAGS, type FlagSpecs } from '@keymaster/reconciler';
import { CRDS_DIR, DEMO_WORLD, startEmulators, startRealBackend } from '@keymaster/testenv';
import { EMULATOR_FLAGS } from './emulator-flags.js';

const EMULATE_FLAGS = {
  ...EMULATOR_FLAGS,
  backend: {
    type: 'string',
    help: 'emulator (default): the kube-emulator; real: a real kube-apiserver + etcd, built once by packages/testenv/scripts/provision-kube.sh',
  },
  'kube-port': { type: 'string', help: "the kube-emulator's port (default 0: a free one)" },
  'aws-port': { type: 'string', help: "the aws-emulator's port (default 0: a free one)" },
  help: { type: 'boolean', short: 'h', help: 'show this help' },
} satisfies FlagSpecs;

export const emulateHelp = (): string =>
  commandHelp(
    'keymaster emulate [flags]',
    `Starts the kube-emulator (with the CRDs and the namespace ${RUN_FLAGS.namespace.default}) and the aws-emulator (with the world), writes the kubeconfig and prints what a controller needs. The controller's keys are the first access key of the first user of the world's first account. Runs until Ctrl-C.`,
    EMULATE_FLAGS,
  );

// Single quotes keep a shell from reading anything in the value.
const shellWord = (value: string) => (/^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`);

/** `keymaster emulate`: both emulators until SIGINT or SIGTERM. */
export async function emulate(args: string[]): Promise<void> {
  const values = parseCommandFlags('emulate', EMULATE_FLAGS, args);
  if (values.help) {
    console.log(emulateHelp());
    return;
  }
  const backend = values.backend ?? 'emulator';
  if (backend !== 'emulator' && backend !== 'real')
    throw new KeymasterError('ERR_KEYMASTER_INVALID_FLAG', `--backend: ${JSON.stringify(backend)} is not a backend`, {
      hint: 'Use --backend emulator (the kube-emulator) or --backend real (kube-apiserver + etcd).',
    });
  const kubePort = portFlag('kube-port', values['kube-port']);
  const awsPort = portFlag('aws-port', values['aws-port']);
  const world = resolve(values.world ?? DEMO_WORLD);
  const dir = values.kubeconfig === undefined ? await mkdtemp(join(tmpdir(), 'keymaster-emulate-')) : undefined;
  const kubeconfig = dir ? join(dir, 'kubeconfig') : resolve(values.kubeconfig!);
  const namespace = RUN_FLAGS.namespace.default;
  const removeTemporary = async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  };
  const started = await (
    backend === 'real'
      ? startRealBackend({ world, kubeconfig, namespace, awsPort })
      : startEmulators({ world, kubeconfig, namespace, kubePort, awsPort }).then((emulators) => ({
          kubeUrl: emulators.kube.url,
          aws: emulators.aws,
          controller: emulators.controller,
          stop: () => emulators.stop(),
        }))
  ).catch(async (error: unknown) => {
    await removeTemporary();
    throw error;
  });
  const { kubeUrl, aws, controller } = started;
  const env: [string, string][] = [
    ['KUBECONFIG', kubeconfig],
    ['AWS_ENDPOINT_URL', aws.url],
    ['AWS_REGION', 'us-east-1'],
    ['AWS_ACCESS_KEY_ID', controller.accessKeyId],
    ['AWS_SECRET_ACCESS_KEY', controller.secretAccessKey],
  ];
  process.stdout.write(
    [
      `${backend === 'real' ? 'kube-apiserver' : 'kube-emulator '} ${kubeUrl}  (CRDs of ${CRDS_DIR}, namespace ${namespace})`,
      `aws-emulator   ${aws.url}  (world ${world})`,
      `kubeconfig     ${kubeconfig}`,
      '',
      `A controller needs this environment (it acts as ${controller.arn}):`,
      ...env.map(([name, value]) => `export ${name}=${shellWord(value)}`),
      `pnpm keymaster run --kubeconfig ${shellWord(kubeconfig)} --metrics-bind-address 127.0.0.1:0 --health-probe-bind-address 127.0.0.1:0`,
      '',
      `Ctrl-C stops ${backend === 'real' ? 'kube-apiserver, etcd and the aws-emulator' : 'both emulators'}.`,
      '',
    ].join('\n'),
  );
  await new Promise((stop) => {
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await started.stop();
  await removeTemporary();
  process.exit(0);
}
