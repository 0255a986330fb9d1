import { execFileSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TestEnvError } from '../errors.js';

// src/helm/ (or dist/helm/ once built) is four levels below the repository root.
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/** The script that builds the pinned helm (scripts/helm-version.env) into the user's cache dir. */
export const HELM_INSTALL_SCRIPT = join(ROOT, 'scripts', 'install-helm.sh');

/** The pinned helm's path; fails with the command that builds it when it is not built. */
export function requireHelm(): string {
  const path = execFileSync('bash', [HELM_INSTALL_SCRIPT, '--path'], { encoding: 'utf8' }).trim();
  try {
    accessSync(path, constants.X_OK);
  } catch {
    // The command is in the message: test runners show the message, not the hint.
    throw new TestEnvError(
      'ERR_KEYMASTER_TESTENV_NOT_PROVISIONED',
      `helm is not built at ${path}; run bash ${HELM_INSTALL_SCRIPT}`,
      {
        hint: 'go install from the Go module proxy, once per machine: about 3 CPU-minutes, 13 minutes on a busy 2-core machine',
      },
    );
  }
  return path;
}
