import { copyFile, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import {
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  KubernetesObjectApi,
  loadAllYaml,
  loadYaml,
  PatchStrategy,
  setHeaderOptions,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { API_VERSION, GROUP, VERSION, type AWSCluster, type AWSClusterLedger } from '@keymaster/api';
import { startAwsEmulator, type AwsEmulator, type World } from '@keymaster/aws-emulator';
import { startKubeEmulator, type KubeEmulator } from '@keymaster/kube-emulator';
import { parseRunFlags } from '../../src/cli/flags.js';
import { startController, type RunningController } from '../../src/cli/run.js';
import { createControllerLogger, type Logger } from '../../src/logging.js';
import type { Clock } from '../../src/runtime/clock.js';

/** Namespace team-a, and the controller's own identity allowing it: what a test's tenant starts from. */
export const TEAM_A = [
  { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } },
  {
    apiVersion: API_VERSION,
    kind: 'AWSClusterControllerIdentity',
    metadata: { name: 'default' },
    spec: { allowedNamespaces: { list: ['team-a'] } },
  },
];

const CRDS = fileURLToPath(new URL('../../../../deploy/crds', import.meta.url));
const RBAC = fileURLToPath(new URL('../../../../deploy/rbac', import.meta.url));
/** The kube-emulator's users with `rbac`: ops (system:masters), and the controller as deploy/rbac's ServiceAccount. */
const OPS_TOKEN = 'ops';
const CONTROLLER_TOKEN = 'keymaster';
const TOKENS = `${OPS_TOKEN},ops,ops,system:masters\n${CONTROLLER_TOKEN},system:serviceaccount:keymaster-system:keymaster,keymaster\n`;

/** Every object of deploy/rbac, as `kubectl apply -k deploy/rbac` creates them. */
async function deployRbac(): Promise<KubernetesObject[]> {
  const files = (await readdir(RBAC)).filter((file) => file.endsWith('.yaml') && file !== 'kustomization.yaml');
  const texts = await Promise.all(files.sort().map((file) => readFile(join(RBAC, file), 'utf8')));
  return texts.flatMap((text) => loadAllYaml(text) as KubernetesObject[]);
}
export const CONTROLLER_KEYS = {
  accessKeyId: 'AKIAEXAMPLECONTROLLER',
  secretAccessKey: 'controller-secret-key-0000000000000000000',
};
export const TENANT_KEYS = {
  accessKeyId: 'AKIAEXAMPLETENANTA01',
  secretAccessKey: 'tenant-a-secret-key-111111111111111111',
};

/** tenant-a's keys, in the controller's namespace. */
export const TENANT_A_KEYS_SECRET = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'tenant-a-keys', namespace: 'keymaster-system' },
  stringData: { AccessKeyID: TENANT_KEYS.accessKeyId, SecretAccessKey: TENANT_KEYS.secretAccessKey },
};

/** The static identity tenant-a of tenant-a's keys, allowing `allowedNamespaces` (every namespace). */
export const staticTenantA = (allowedNamespaces: object = {}) => ({
  apiVersion: API_VERSION,
  kind: 'AWSClusterStaticIdentity',
  metadata: { name: 'tenant-a' },
  spec: { secretRef: 'tenant-a-keys', allowedNamespaces },
});

/** AWSCluster team-a/prod in us-west-2 through the static identity tenant-a, with `spec` added. */
export const teamAProd = (spec: Record<string, unknown>) => ({
  apiVersion: API_VERSION,
  kind: 'AWSCluster',
  metadata: { name: 'prod', namespace: 'team-a' },
  spec: { region: 'us-west-2', identityRef: { kind: 'AWSClusterStaticIdentity', name: 'tenant-a' }, ...spec },
});

/** Namespace team-a, tenant-a's keys and the static identity using them, allowing every namespace. */
export const STATIC_TENANT_A = [
  { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } },
  TENANT_A_KEYS_SECRET,
  staticTenantA(),
];

const TAGGER = ['tag:*', 'ec2:CreateTags', 'ec2:DeleteTags', 'ec2:DescribeTags', 'sts:GetCallerIdentity'];

/** Account 111111111111 holds the controller's user, 222222222222 a tenant's user; each has resources of cluster `prod`. */
export function world(): World {
  const resource = (account: string, id: string, cluster = 'prod') => ({
    arn: `arn:aws:ec2:us-west-2:${account}:instance/${id}`,
    tags: { [`sigs.k8s.io/cluster-api-provider-aws/cluster/${cluster}`]: 'owned' },
  });
  return {
    accounts: [
      {
        id: '111111111111',
        users: [{ name: 'keymaster-controller', accessKeys: [CONTROLLER_KEYS], allow: ['sts:AssumeRole', ...TAGGER] }],
        resources: [resource('111111111111', 'i-0000000000000000a')],
      },
      {
        id: '222222222222',
        users: [{ name: 'tenant-a', accessKeys: [TENANT_KEYS], allow: TAGGER }],
        resources: [resource('222222222222', 'i-0000000000000000b')],
      },
    ],
  };
}

/** Lets an assertion fail until it holds, or the deadline passes (then its last failure is thrown). */
export async function eventually<T>(check: () => Promise<T> | T, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** Resolves once `read` fails: the object is gone. */
export const gone = (read: () => Promise<unknown>): Promise<void> =>
  eventually(async () => {
    const found = await read().then(
      () => true,
      () => false,
    );
    if (found) throw new Error('still there');
  });

export interface Platform {
  kube: KubeEmulator;
  aws: AwsEmulator;
  objects: KubernetesObjectApi;
  core: CoreV1Api;
  custom: CustomObjectsApi;
  controller: RunningController;
  /** The kubeconfig file the controller was started with (to start another). */
  kubeconfig: string;
  /** Stops the controller and starts another with the same flags and options: a restart, or an upgrade. */
  restart(): Promise<void>;
  cluster(namespace: string, name: string): Promise<AWSCluster>;
  ledger(namespace: string, name: string): Promise<AWSClusterLedger>;
  /** A merge patch of an AWSCluster's spec, as `kubectl patch --type merge` (`null` removes a field). */
  patchCluster(namespace: string, name: string, spec: object): Promise<void>;
  get<T>(plural: string, name: string): Promise<T>;
  stop(): Promise<void>;
}

interface PlatformOptions {
  logger?: Logger;
  /** The aws-emulator's accounts (default: `world()`), or a function of the kube-emulator (its issuer, for web identities). */
  world?: World | ((kube: KubeEmulator) => World);
  /** Serve the kube-emulator over TLS (an OIDC provider's discovery needs it). */
  tls?: boolean;
  defaultCredentialChain?: boolean;
  /** The controller's time (default: the wall clock). */
  clock?: Clock;
  /**
   * The kube-emulator enforces RBAC: the controller runs as deploy/rbac's ServiceAccount, with
   * deploy/rbac installed; the test's clients (and `objects`) are ops, in system:masters.
   */
  rbac?: boolean;
  /**
   * As on a management cluster upgraded from 0.2.0: the objects are created before the
   * AWSClusterLedger CRD, which is installed (a second later at least) before the controller starts.
   */
  ledgerCrdLater?: boolean;
}

const LEDGER_CRD_FILE = 'infrastructure.keymaster.dev_awsclusterledgers.yaml';

/** deploy/crds without the ledger CRD, in a folder of its own. */
async function crdsBeforeLedgers(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'keymaster-crds-'));
  for (const file of await readdir(CRDS))
    if (file.endsWith('.yaml') && file !== LEDGER_CRD_FILE && file !== 'kustomization.yaml')
      await copyFile(join(CRDS, file), join(folder, file));
  return folder;
}

/** Both emulators, the given objects applied, and the controller running in-process against them. */
export async function startPlatform(
  objects: object[],
  runArgs: string[] = [],
  options: PlatformOptions = {},
): Promise<Platform> {
  const tokens = options.rbac ? join(await mkdtemp(join(tmpdir(), 'keymaster-')), 'tokens.csv') : undefined;
  if (tokens) await writeFile(tokens, TOKENS);
  const kube = await startKubeEmulator({
    crds: options.ledgerCrdLater ? await crdsBeforeLedgers() : CRDS,
    ...(options.tls ? { tls: true } : {}),
    ...(tokens ? { tokenAuthFile: tokens, authorization: 'RBAC' as const } : {}),
  });
  const aws = await startAwsEmulator({
    world: typeof options.world === 'function' ? options.world(kube) : (options.world ?? world()),
  });
  try {
    return await platformOn(kube, aws, objects, runArgs, options);
  } catch (error) {
    // A set-up that fails stops what it started: a server left listening keeps mocha from exiting.
    await Promise.all([kube.stop(), aws.stop()]);
    throw error;
  }
}

async function platformOn(
  kube: KubeEmulator,
  aws: AwsEmulator,
  objects: object[],
  runArgs: string[],
  options: PlatformOptions,
): Promise<Platform> {
  const kubeconfig = join(await mkdtemp(join(tmpdir(), 'keymaster-')), 'kubeconfig');
  await writeFile(kubeconfig, kube.kubeConfig(options.rbac ? { token: CONTROLLER_TOKEN } : {}));
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(kube.kubeConfig(options.rbac ? { token: OPS_TOKEN } : {}));
  const api = KubernetesObjectApi.makeApiClient(kubeConfig);
  const rbac = options.rbac ? await deployRbac() : [];
  for (const object of [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'keymaster-system' } },
    ...rbac,
    ...objects,
  ]) {
    await api.create(object);
  }
  if (options.ledgerCrdLater) {
    // Creation times count seconds: the CRD is created in a later second than every object.
    const created = Date.now();
    await eventually(() => {
      if (Math.floor(Date.now() / 1000) <= Math.floor(created / 1000)) throw new Error('the same second');
    });
    await api.create(loadYaml<KubernetesObject>(await readFile(join(CRDS, LEDGER_CRD_FILE), 'utf8')));
    const custom = kubeConfig.makeApiClient(CustomObjectsApi);
    await eventually(() =>
      custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: 'awsclusterledgers' }),
    );
  }
  const flags = parseRunFlags([
    '--kubeconfig',
    kubeconfig,
    '--metrics-bind-address',
    '0',
    '--health-probe-bind-address',
    '0',
    '--sync-period',
    '2s',
    ...runArgs,
  ]);
  // The default chain reads the process's environment, as `keymaster run` does.
  const credentials = options.defaultCredentialChain ? {} : { credentials: () => Promise.resolve(CONTROLLER_KEYS) };
  const start = () =>
    startController(flags, {
      aws: { endpoint: aws.url, ...credentials },
      logger: options.logger ?? createControllerLogger('error', 'json', new PassThrough().resume()),
      ...(options.clock ? { clock: options.clock } : {}),
    });
  const controller = await start();
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const namespaced = async <T>(plural: string, namespace: string, name: string) =>
    (await custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural, name })) as T;
  const platform: Platform = {
    kube,
    aws,
    objects: api,
    core: kubeConfig.makeApiClient(CoreV1Api),
    custom,
    controller,
    kubeconfig,
    restart: async () => {
      await platform.controller.stop();
      platform.controller = await start();
    },
    cluster: (namespace, name) => namespaced<AWSCluster>('awsclusters', namespace, name),
    ledger: (namespace, name) => namespaced<AWSClusterLedger>('awsclusterledgers', namespace, name),
    patchCluster: async (namespace, name, spec) => {
      const target = { group: GROUP, version: VERSION, plural: 'awsclusters', namespace, name, body: { spec } };
      await custom.patchNamespacedCustomObject(target, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
    },
    get: async <T>(plural: string, name: string) =>
      (await custom.getClusterCustomObject({ group: GROUP, version: VERSION, plural, name })) as T,
    stop: async () => {
      await platform.controller.stop();
      await kube.stop();
      await aws.stop();
    },
  };
  return platform;
}

export const condition = (cluster: AWSCluster, type: string) =>
  cluster.status?.conditions?.find((item) => item.type === type);
