import { execFile } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

/** kubectl 1.33, installed beside the `kubectl` on PATH (the Google Cloud SDK's bin folder). */
export function kubectl133(): string {
  const folder = (process.env.PATH ?? '')
    .split(':')
    .map((dir) => join(dir, 'kubectl'))
    .find((path) => existsSync(path));
  const path = join(folder ? dirname(realpathSync(folder)) : '/usr/lib/google-cloud-sdk/bin', 'kubectl.1.33');
  if (!existsSync(path))
    throw new Error(`kubectl 1.33 not found at ${path}: install the Google Cloud SDK's kubectl components`);
  return path;
}

/** Runs kubectl 1.33 with a kubeconfig; never throws on a non-zero exit (tests look at the result). */
export async function kubectl(
  kubeconfig: string,
  args: string[],
): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(kubectl133(), ['--kubeconfig', kubeconfig, ...args], {
      timeout: 30_000,
      env: { ...process.env, HOME: dirname(kubeconfig) },
    });
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; code?: number };
    return {
      stdout: failed.stdout ?? '',
      stderr: failed.stderr ?? '',
      code: typeof failed.code === 'number' ? failed.code : 1,
    };
  }
}
