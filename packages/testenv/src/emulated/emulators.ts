import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { KeymasterError } from '@keymaster/api';
import { loadWorldFile, startAwsEmulator, type AwsEmulator, type World } from '@keymaster/aws-emulator';
import { startKubeEmulator, type KubeEmulator } from '@keymaster/kube-emulator';
import { startRealKube } from '../kube/real-kube.js';
import { CRDS_DIR } from './paths.js';

/** The emulators' errors have their own base class, in the same style (a stable code and a hint): told the same way. */
function rethrowAsKeymasterError(error: unknown): never {
  const { code, hint } = error as { code?: unknown; hint?: unknown };
  if (typeof code === 'string' && code.startsWith('ERR_KEYMASTER_'))
    throw new KeymasterError(code as `ERR_KEYMASTER_${string}`, (error as Error).message, {
      ...(typeof hint === 'string' ? { hint } : {}),
      cause: error,
    });
  throw error;
}

/** AWS keys of a user of the world. */
export interface AccessKeys {
  accessKeyId: string;
  secretAccessKey: string;
  /** The user's ARN. */
  arn: string;
}

/** The controller's keys: by convention, the first access key of the first user of the world's first account. */
export function controllerKeys(world: World): AccessKeys {
  const account = world.accounts[0];
  const user = account?.users?.[0];
  const key = user?.accessKeys?.[0];
  if (!account || !user || !key)
    throw new KeymasterError(
      'ERR_KEYMASTER_DEMO_WORLD',
      'the world has no user with an access key in its first account',
      {
        hint: "Give the first account's first user an access key: the controller acts with it.",
      },
    );
  return { ...key, arn: `arn:aws:iam::${account.id}:user/${user.name}` };
}

export interface EmulatorOptions {
  /** A world file for the aws-emulator. */
  world: string;
  /** Where to write the kubeconfig. */
  kubeconfig: string;
  /** The controller's namespace, created at start. */
  namespace: string;
  kubePort?: number;
  awsPort?: number;
}

async function loadWorld(path: string): Promise<{ world: World; controller: AccessKeys }> {
  const world = await loadWorldFile(path).catch(rethrowAsKeymasterError);
  return { world, controller: controllerKeys(world) };
}

/** The aws-emulator with the world; `cleanUp` stops what was started before it when it cannot listen. */
async function startAws(world: World, port = 0, cleanUp: () => Promise<void>): Promise<AwsEmulator> {
  try {
    return await startAwsEmulator({ port, world });
  } catch (error) {
    await cleanUp();
    throw new KeymasterError(
      'ERR_KEYMASTER_DEMO_LISTEN',
      `the aws-emulator cannot listen on port ${port}: ${(error as Error).message}`,
      {
        hint: 'Pick another port, or 0 for a free one.',
        cause: error,
      },
    );
  }
}

/** A real kube-apiserver + etcd (built once: scripts/provision-kube.sh) and the aws-emulator, for `emulate --backend real`. */
export interface RealBackend {
  kubeUrl: string;
  aws: AwsEmulator;
  controller: AccessKeys;
  stop(): Promise<void>;
}

/**
 * Starts the real pair: kube-apiserver + etcd with the CRDs of deploy/crds and the controller's
 * namespace, the admin kubeconfig written, and the aws-emulator with the world.
 */
export async function startRealBackend(options: Omit<EmulatorOptions, 'kubePort'>): Promise<RealBackend> {
  const { world, controller } = await loadWorld(options.world);
  const kube = await startRealKube({ crds: CRDS_DIR, namespaces: [options.namespace] }).catch(rethrowAsKeymasterError);
  const aws = await startAws(world, options.awsPort, () => kube.stop());
  const stop = async () => {
    await Promise.all([kube.stop(), aws.stop()]);
  };
  await kube.writeKubeConfig(options.kubeconfig).catch(async (error: unknown) => {
    await stop();
    throw new KeymasterError('ERR_KEYMASTER_DEMO_KUBECONFIG', `cannot write the kubeconfig to ${options.kubeconfig}`, {
      hint: 'Pass a path in a folder that exists and that you may write to.',
      cause: error,
    });
  });
  return { kubeUrl: kube.url, aws, controller, stop };
}

/** Both emulators, set up as a management cluster and the AWS it manages. */
export interface Emulators {
  kube: KubeEmulator;
  aws: AwsEmulator;
  /** For clients of the emulated cluster. */
  kubeConfig: KubeConfig;
  controller: AccessKeys;
  /** Keys of a user of the account allowed to tag (tag:TagResources), as a tenant's automation has. */
  taggerKeys(accountId: string): AccessKeys | undefined;
  stop(): Promise<void>;
}

/**
 * Starts the kube-emulator (with the CRDs of deploy/crds and the controller's namespace) and the
 * aws-emulator (with the world), and writes the kubeconfig.
 */
export async function startEmulators(options: EmulatorOptions): Promise<Emulators> {
  const { world, controller } = await loadWorld(options.world);
  const kube = await startKubeEmulator({ port: options.kubePort ?? 0, crds: CRDS_DIR }).catch(rethrowAsKeymasterError);
  const aws = await startAws(world, options.awsPort, () => kube.stop());
  const emulators: Emulators = {
    kube,
    aws,
    kubeConfig: new KubeConfig(),
    controller,
    taggerKeys: (accountId) => {
      const account = world.accounts.find(({ id }) => id === accountId);
      const user = account?.users?.find(
        ({ allow, accessKeys }) => allow?.includes('tag:TagResources') && accessKeys?.length,
      );
      const key = user?.accessKeys?.[0];
      return user && key && { ...key, arn: `arn:aws:iam::${accountId}:user/${user.name}` };
    },
    stop: async () => {
      await Promise.all([kube.stop(), aws.stop()]);
    },
  };
  try {
    await kube.writeKubeConfig(options.kubeconfig).catch((error: unknown) => {
      throw new KeymasterError(
        'ERR_KEYMASTER_DEMO_KUBECONFIG',
        `cannot write the kubeconfig to ${options.kubeconfig}: ${(error as Error).message}`,
        { hint: 'Pass a path in a folder that exists and that you may write to.', cause: error },
      );
    });
    emulators.kubeConfig.loadFromString(kube.kubeConfig());
    await emulators.kubeConfig
      .makeApiClient(CoreV1Api)
      .createNamespace({ body: { metadata: { name: options.namespace } } });
  } catch (error) {
    await emulators.stop();
    throw error;
  }
  return emulators;
}
