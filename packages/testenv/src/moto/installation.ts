import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { testEnvCacheDir } from '../cache.js';
import { TestEnvError } from '../errors.js';
import { executable } from '../files.js';

const SCRIPTS_DIR = fileURLToPath(new URL('../../scripts', import.meta.url));

/** The script that installs moto; CI and people run it once per machine. */
export const MOTO_PROVISION_SCRIPT = join(SCRIPTS_DIR, 'provision-moto.sh');
/** moto[server] and every dependency, pinned; the provisioning script installs exactly this. */
export const MOTO_REQUIREMENTS = join(SCRIPTS_DIR, 'moto-requirements.txt');

/** The file provision-moto.sh writes last, holding the SHA-256 of the requirements it installed. */
const MARKER = '.keymaster-requirements.sha256';

export interface MotoInstallation {
  /** moto's version, from the `moto[server]==` line of the requirements. */
  version: string;
  /** The virtualenv: `<cache dir>/moto-<version>`. */
  dir: string;
  /** Its `bin/moto_server`. */
  server: string;
}

/** The pinned moto version of a requirements text. */
export function motoVersion(requirements: string): string {
  const match = /^moto\[server\]==(\S+)$/m.exec(requirements);
  if (!match) throw new Error(`${MOTO_REQUIREMENTS} has no moto[server]==VERSION line`);
  return match[1]!;
}

/** Where provision-moto.sh puts the pinned moto: one virtualenv per version in the cache dir. */
export function motoInstallation(cacheDir = testEnvCacheDir()): MotoInstallation {
  const version = motoVersion(readFileSync(MOTO_REQUIREMENTS, 'utf8'));
  const dir = join(cacheDir, `moto-${version}`);
  return { version, dir, server: join(dir, 'bin', 'moto_server') };
}

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return '';
  }
}

/** The installation, or an error saying what is missing and the command that installs it. */
export function requireMoto(cacheDir = testEnvCacheDir()): MotoInstallation {
  const installation = motoInstallation(cacheDir);
  const wanted = createHash('sha256').update(readFileSync(MOTO_REQUIREMENTS)).digest('hex');
  const found = readOrEmpty(join(installation.dir, MARKER));
  const problem = !executable(installation.server)
    ? `moto ${installation.version} is not provisioned: ${installation.server} does not exist`
    : found !== wanted
      ? `moto ${installation.version} in ${installation.dir} was not installed from the current ${MOTO_REQUIREMENTS} (or its install did not finish)`
      : undefined;
  if (problem !== undefined) {
    throw new TestEnvError('ERR_KEYMASTER_TESTENV_NOT_PROVISIONED', problem, {
      hint: `run bash ${MOTO_PROVISION_SCRIPT} (or pnpm --filter @keymaster/testenv provision:moto): it installs moto[server]==${installation.version} and its pinned dependencies from PyPI into ${installation.dir}, about a minute the first time, then never again`,
    });
  }
  return installation;
}
