import { execFile } from 'node:child_process';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { requireKubeBinaries } from '../../../src/kube/binaries.js';

/** Runs the kubectl of the server's minor (provision-kube.sh builds both) with a kubeconfig; never throws on a non-zero exit. */
export async function kubectl(
  kubeconfig: string,
  args: string[],
): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      requireKubeBinaries().kubectl,
      ['--kubeconfig', kubeconfig, ...args],
      { timeout: 30_000, env: { ...process.env, HOME: dirname(kubeconfig) } },
    );
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
