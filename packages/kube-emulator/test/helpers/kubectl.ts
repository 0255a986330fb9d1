import { execFile } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Where the versioned kubectl binaries live: beside the `kubectl` on PATH (the Google Cloud SDK's bin). */
function binFolder(): string {
  for (const folder of (process.env.PATH ?? '').split(':')) {
    const candidate = join(folder, 'kubectl');
    if (existsSync(candidate)) return dirname(realpathSync(candidate));
  }
  return '/usr/lib/google-cloud-sdk/bin';
}

/** The path of kubectl 1.NN; fails with a clear message when it is not installed. */
export function kubectlBinary(minor: number): string {
  const path = join(binFolder(), `kubectl.1.${minor}`);
  if (!existsSync(path)) {
    throw new Error(
      `kubectl 1.${minor} not found at ${path}: these tests drive the real kubectl binaries (install the Google Cloud SDK's kubectl components)`,
    );
  }
  return path;
}

export interface KubectlResult {
  stdout: string;
  stderr: string;
  code: number;
}

/** Runs kubectl against a kubeconfig; never throws on a non-zero exit (tests look at the result). */
export async function kubectl(
  binary: string,
  kubeconfig: string,
  args: string[],
  options: { timeoutMs?: number } = {},
): Promise<KubectlResult> {
  try {
    const { stdout, stderr } = await run(binary, ['--kubeconfig', kubeconfig, ...args], {
      timeout: options.timeoutMs ?? 20_000,
      env: { ...process.env, KUBECONFIG: kubeconfig, HOME: dirname(kubeconfig) },
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
