import { readFileSync } from 'node:fs';
import { KubeEmulatorError } from '../errors.js';

/** Who made a request. */
export interface User {
  name: string;
  uid: string;
  groups: string[];
  /** Extra attributes (a service account token's credential ID). */
  extra?: Record<string, string[]>;
}

/** A service account's user name is this prefix, then `<namespace>:<name>`. */
export const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

/** A request without credentials, as kube-apiserver's anonymous authenticator names it. */
export const ANONYMOUS: User = { name: 'system:anonymous', uid: '', groups: ['system:unauthenticated'] };

/** Without a token file every request is this user, as an apiserver that trusts its callers. */
export const ADMIN: User = { name: 'admin', uid: 'admin', groups: ['system:masters', 'system:authenticated'] };

/** Splits a CSV line, honouring double quotes (`token,user,uid,"group1,group2"`). */
function csvFields(line: string): string[] {
  const fields: string[] = [];
  let current = '';
  let quoted = false;
  for (let index = 0; index < line.length; index++) {
    const char = line[index]!;
    if (char === '"' && quoted && line[index + 1] === '"') {
      current += '"';
      index++;
    } else if (char === '"') quoted = !quoted;
    else if (char === ',' && !quoted) {
      fields.push(current);
      current = '';
    } else current += char;
  }
  fields.push(current);
  return fields.map((field) => field.trim());
}

/** Parses kube-apiserver's `--token-auth-file` format: one `token,user,uid[,"group,..."]` per line. */
export function parseTokenFile(text: string, source: string): Map<string, User> {
  const users = new Map<string, User>();
  text.split(/\r?\n/).forEach((line, index) => {
    if (line.trim() === '' || line.trim().startsWith('#')) return;
    const [token, name, uid, groups] = csvFields(line);
    if (!token || !name || !uid) {
      throw new KubeEmulatorError(
        'ERR_KEYMASTER_KUBE_EMULATOR_TOKEN_FILE',
        `${source} line ${index + 1}: expected token,user,uid[,"group1,group2"] with a non-empty token, user and uid`,
        { hint: 'write one user per line in the kube-apiserver --token-auth-file format' },
      );
    }
    const groupList = (groups ?? '')
      .split(',')
      .map((group) => group.trim())
      .filter((group) => group !== '');
    users.set(token, { name, uid, groups: [...groupList, 'system:authenticated'] });
  });
  return users;
}

export function readTokenFile(path: string): Map<string, User> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new KubeEmulatorError('ERR_KEYMASTER_KUBE_EMULATOR_TOKEN_FILE', `cannot read the token file ${path}`, {
      hint: 'pass an existing CSV file to --token-auth-file (tokenAuthFile)',
      cause: error,
    });
  }
  return parseTokenFile(text, path);
}
