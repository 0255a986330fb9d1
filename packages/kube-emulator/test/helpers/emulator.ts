import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
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

/** A raw HTTP(S) call to the emulator, for what clients do not expose (headers, status bodies). */
export function call(
  emulator: KubeEmulator,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: unknown; headers: Headers }> {
  const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  const url = new URL(`${emulator.url}${path}`);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(
      url,
      {
        method,
        headers: {
          'Content-Type': 'application/json',
          ...(payload === undefined ? {} : { 'Content-Length': String(Buffer.byteLength(payload)) }),
          ...headers,
        },
        ca: emulator.caCertificate,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // not JSON: keep the text
          }
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(response.headers)) {
            for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value])
              responseHeaders.append(name, item);
          }
          resolve({ status: response.statusCode ?? 0, body: parsed, headers: responseHeaders });
        });
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}
