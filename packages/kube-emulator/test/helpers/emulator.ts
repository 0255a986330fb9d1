import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import { startKubeEmulator, type KubeEmulator, type KubeEmulatorOptions } from '../../src/index.js';

/** The project's CRDs, read as data the way a cluster is given them. */
export const CRDS = fileURLToPath(new URL('../../../../deploy/crds', import.meta.url));

export interface TestCluster {
  emulator: KubeEmulator;
  /** A kubeconfig file for kubectl (in a temporary folder that is also kubectl's HOME). */
  kubeconfig: string;
  kubeConfig: KubeConfig;
  stop(): Promise<void>;
}

/** An emulator on 127.0.0.1 with the project's CRDs, a kubeconfig file and a client-node KubeConfig. */
export async function startTestCluster(options: KubeEmulatorOptions & { token?: string } = {}): Promise<TestCluster> {
  const { token, ...emulatorOptions } = options;
  const emulator = await startKubeEmulator({ host: '127.0.0.1', port: 0, crds: CRDS, ...emulatorOptions });
  const folder = mkdtempSync(join(tmpdir(), 'kube-emulator-test-'));
  const kubeconfig = join(folder, 'kubeconfig');
  const config = token === undefined ? {} : { token };
  await emulator.writeKubeConfig(kubeconfig, config);
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(emulator.kubeConfig(config));
  return {
    emulator,
    kubeconfig,
    kubeConfig,
    stop: async () => {
      await emulator.stop();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

/** A raw HTTP call to the emulator, for what clients do not expose (headers, status bodies). */
export async function call(
  emulator: KubeEmulator,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: unknown; headers: Headers }> {
  const response = await fetch(`${emulator.url}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body: parsed, headers: response.headers };
}
