import { execFile } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { requireKubeBinaries } from '@keymaster/testenv';
import { BACKEND } from './api-server.js';

/** kubectl 1.33, installed beside the `kubectl` on PATH (the Google Cloud SDK's bin folder). */
function machineKubectl(): string {
  const onPath = (process.env['PATH'] ?? '')
    .split(':')
    .map((dir) => join(dir, 'kubectl'))
    .find((path) => existsSync(path));
  return join(onPath ? dirname(realpathSync(onPath)) : '/usr/lib/google-cloud-sdk/bin', 'kubectl.1.33');
}

/**
 * The kubectl of the API server's minor: on a real kube-apiserver the one provision-kube.sh built
 * beside it; on the kube-emulator the machine's kubectl 1.33 ($KUBECTL overrides either).
 */
export function kubectlBinary(): string {
  return process.env['KUBECTL'] ?? (BACKEND === 'real' ? requireKubeBinaries().kubectl : machineKubectl());
}

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** kubectl (the real binary) with a kubeconfig given as YAML: what a user types, and what it prints. */
export async function kubectl(
  dir: string,
  kubeConfigYaml: string,
  args: string[],
  stdin?: string,
): Promise<KubectlResult> {
  const kubeconfig = join(dir, `kubeconfig-${Math.random().toString(36).slice(2)}`);
  await writeFile(kubeconfig, kubeConfigYaml, { mode: 0o600 });
  return new Promise((resolve) => {
    const child = execFile(
      kubectlBinary(),
      ['--kubeconfig', kubeconfig, ...args],
      { env: { PATH: process.env['PATH'] ?? '', HOME: dir }, timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({
          code: error ? ((error as { code?: number }).code ?? 1) : 0,
          stdout,
          stderr,
        }),
    );
    if (stdin !== undefined) child.stdin?.end(stdin);
  });
}

/** `kind.group/name` as kubectl prints objects (`customresourcedefinition.apiextensions.k8s.io/NAME`). */
export const kubectlName = ({
  apiVersion = '',
  kind = '',
  metadata = {},
}: {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string };
}) => {
  const group = apiVersion.includes('/') ? `.${apiVersion.split('/')[0]!}` : '';
  return `${kind.toLowerCase()}${group}/${metadata.name ?? ''}`;
};
