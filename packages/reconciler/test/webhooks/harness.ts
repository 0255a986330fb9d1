import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { KubeConfig, KubernetesObjectApi, type KubernetesObject } from '@kubernetes/client-node';
import { startAwsEmulator, type AwsEmulator } from '@keymaster/aws-emulator';
import { startKubeEmulator, type KubeEmulator } from '@keymaster/kube-emulator';
import { parseAllDocuments } from 'yaml';
import { parseRunFlags } from '../../src/cli/flags.js';
import { startController, type RunningController } from '../../src/cli/run.js';
import { createControllerLogger } from '../../src/logging.js';
import { CONTROLLER_KEYS, world } from '../integration/harness.js';
import { writeServingCertificate } from '@keymaster/testenv';

const DEPLOY = fileURLToPath(new URL('../../../../deploy', import.meta.url));

/** The users of the emulator's token file: ops, the platform team (privileged), two tenants. */
export const USERS = {
  admin: { token: 'admin-token', name: 'admin', groups: ['system:masters'] },
  ops: { token: 'ops-token', name: 'olga', groups: ['ops'] },
  platform: { token: 'platform-token', name: 'pat', groups: ['platform-team'] },
  tenantA: { token: 'tenant-a-token', name: 'alice', groups: ['tenant-a-developers'] },
  tenantB: { token: 'tenant-b-token', name: 'bob', groups: ['tenant-b-developers'] },
} as const;
export type UserName = keyof typeof USERS;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** deploy/webhooks/webhooks.yaml, its Service references turned into URLs the emulator can reach. */
export async function webhookConfigurations(port: number): Promise<KubernetesObject[]> {
  const text = await readFile(join(DEPLOY, 'webhooks', 'webhooks.yaml'), 'utf8');
  return parseAllDocuments(text).map((document) => {
    const configuration = document.toJS() as KubernetesObject & {
      webhooks: { clientConfig: { service?: { path: string }; url?: string } }[];
    };
    for (const webhook of configuration.webhooks) {
      webhook.clientConfig = { url: `https://127.0.0.1:${port}${webhook.clientConfig.service!.path}` };
    }
    return configuration;
  });
}

export interface Answer {
  status: number;
  body: { message?: string; metadata?: { labels?: Record<string, string> } } & Record<string, unknown>;
  warnings: string[];
}

export interface AdmissionPlatform {
  kube: KubeEmulator;
  aws: AwsEmulator;
  controller: RunningController;
  certDir: string;
  logs: string[];
  as(user: UserName): { objects: KubernetesObjectApi; kubeConfig: KubeConfig };
  /** A raw request as `user`: the Status of a refusal and the Warning headers, as kubectl shows them. */
  send(user: UserName, method: string, path: string, body?: unknown, contentType?: string): Promise<Answer>;
  stop(): Promise<void>;
}

/**
 * The kube-emulator with a token file, the aws-emulator and `keymaster run` in-process with its webhook
 * server (a certificate from a CA of its own, injected by the controller into deploy/webhooks' configurations).
 */
export async function startAdmissionPlatform(objects: object[], runArgs: string[] = []): Promise<AdmissionPlatform> {
  const dir = await mkdtemp(join(tmpdir(), 'keymaster-webhooks-'));
  const tokenFile = join(dir, 'tokens.csv');
  await writeFile(
    tokenFile,
    Object.values(USERS)
      .map(({ token, name, groups }) => `${token},${name},${name},"${groups.join(',')}"`)
      .join('\n'),
  );
  const kube = await startKubeEmulator({
    crds: fileURLToPath(new URL('../../../../deploy/crds', import.meta.url)),
    tokenAuthFile: tokenFile,
  });
  const aws = await startAwsEmulator({ world: world() });
  const clients = (user: UserName) => {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(kube.kubeConfig({ token: USERS[user].token }));
    return { objects: KubernetesObjectApi.makeApiClient(kubeConfig), kubeConfig };
  };
  const port = await freePort();
  const admin = clients('admin').objects;
  // The objects first: until the controller serves them, the tenancy webhook (failurePolicy Fail)
  // refuses labelled namespaces.
  for (const object of [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'keymaster-system' } },
    ...objects,
    ...(await webhookConfigurations(port)),
  ]) {
    await admin.create(object);
  }
  const certDir = join(dir, 'certs');
  await mkdir(certDir);
  await writeServingCertificate(certDir, 'keymaster-webhook-ca-1');
  const kubeconfig = join(dir, 'kubeconfig');
  await writeFile(kubeconfig, kube.kubeConfig({ token: USERS.admin.token }));
  const logs: string[] = [];
  const sink = new PassThrough();
  sink.on('data', (chunk: Buffer) => logs.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
  const flags = parseRunFlags([
    `--kubeconfig=${kubeconfig}`,
    '--metrics-bind-address=0',
    '--health-probe-bind-address=0',
    '--sync-period=2s',
    `--webhook-port=${port}`,
    `--webhook-cert-dir=${certDir}`,
    '--webhook-inject-ca-bundle',
    '--admission-privileged-groups=platform-team',
    '--tenant-groups=tenant-a-developers=tenant-a,tenant-b-developers=tenant-b',
    ...runArgs,
  ]);
  const controller = await startController(flags, {
    aws: { endpoint: aws.url, credentials: () => Promise.resolve(CONTROLLER_KEYS) },
    logger: createControllerLogger('info', 'json', sink),
  });
  return {
    kube,
    aws,
    controller,
    certDir,
    logs,
    as: clients,
    send: async (user, method, path, body, contentType = 'application/json') => {
      const response = await fetch(`${kube.url}${path}`, {
        method,
        headers: { Authorization: `Bearer ${USERS[user].token}`, 'Content-Type': contentType },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const warnings = (response.headers.get('warning') ?? '')
        .split(/,\s*(?=299 )/)
        .filter(Boolean)
        .map((header) => JSON.parse(header.replace(/^299 - /, '')) as string);
      return { status: response.status, body: (await response.json()) as Answer['body'], warnings };
    },
    stop: async () => {
      await controller.stop();
      await kube.stop();
      await aws.stop();
    },
  };
}
