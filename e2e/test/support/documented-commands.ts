import { execFile } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './controller-process.js';

export interface ShellResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The `sh` block after `<!-- <marker>: ... -->` in a doc of the repository, exactly as a reader copies it. */
export async function documentedCommands(doc: string, marker: string): Promise<string> {
  const text = await readFile(join(REPO_ROOT, doc), 'utf8');
  const block = new RegExp(`<!-- ${marker}:[^>]*-->\\s*\`\`\`sh\\n([\\s\\S]*?)\`\`\``).exec(text);
  if (!block) throw new Error(`${doc} has no sh block after <!-- ${marker}: ... -->`);
  return block[1]!;
}

/**
 * Runs documented commands with bash (`set -euo pipefail`) as a user at a terminal would: `kubectl` is
 * kubectl 1.33 (the real binary), talking to the cluster of `kubeConfigYaml`; `env` adds variables the
 * doc tells the reader to set; `cwd` is where files the commands write stay for the next ones. Nothing
 * else of this machine's configuration reaches it.
 */
export async function runDocumented(
  commands: string,
  kubeConfigYaml: string,
  env: Record<string, string> = {},
  cwd?: string,
): Promise<ShellResult> {
  const home = await mkdtemp(join(tmpdir(), 'keymaster-e2e-doc-'));
  try {
    await writeFile(join(home, 'kubeconfig'), kubeConfigYaml, { mode: 0o600 });
    await writeFile(join(home, 'kubectl'), `#!/bin/sh\nexec ${process.env['KUBECTL'] ?? 'kubectl.1.33'} "$@"\n`);
    await chmod(join(home, 'kubectl'), 0o755);
    return await new Promise((resolve) =>
      execFile(
        'bash',
        ['-c', `set -euo pipefail\n${commands}`],
        {
          // Files the commands write go to a folder of their own, never the repository.
          cwd: home,
          env: {
            PATH: `${home}:${process.env['PATH'] ?? '/usr/bin:/bin'}:/usr/lib/google-cloud-sdk/bin`,
            HOME: home,
            KUBECONFIG: join(home, 'kubeconfig'),
            ...env,
          },
          timeout: 120_000,
          ...(cwd ? { cwd } : {}),
        },
        (error, stdout, stderr) =>
          resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      ),
    );
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}
