import { readFile } from 'node:fs/promises';
import { TestEnvError } from '../errors.js';

/** A user of kube-apiserver's static token file: requests with `Authorization: Bearer TOKEN` are this user. */
export interface TokenUser {
  token: string;
  user: string;
  uid: string;
  groups?: string[];
}

/** The admin: in `system:masters`, which RBAC lets do everything. */
export const ADMIN_USER = 'keymaster-testenv-admin';

const FIELD = /^[^\s,"]+$/;
const GROUP = /^[^,"\r\n]+$/;

function invalid(index: number, field: string, value: unknown): TestEnvError {
  return new TestEnvError(
    'ERR_KEYMASTER_TESTENV_TOKENS',
    `tokens[${index}].${field} ${JSON.stringify(value)} cannot go into kube-apiserver's token file`,
    {
      hint:
        field === 'groups'
          ? 'use group names without commas, quotes or line breaks'
          : 'use a non-empty value without spaces, commas or quotes',
    },
  );
}

/** kube-apiserver's `--token-auth-file` CSV (`token,user,uid,"group1,group2"` per line), checked field by field. */
export function tokenFileText(users: readonly TokenUser[]): string {
  const seen = new Set<string>();
  return users
    .map((entry, index) => {
      for (const field of ['token', 'user', 'uid'] as const) {
        if (typeof entry[field] !== 'string' || !FIELD.test(entry[field])) throw invalid(index, field, entry[field]);
      }
      for (const group of entry.groups ?? []) if (!GROUP.test(group)) throw invalid(index, 'groups', group);
      if (seen.has(entry.token)) {
        throw new TestEnvError('ERR_KEYMASTER_TESTENV_TOKENS', `tokens[${index}].token is given to two users`, {
          hint: 'give every user its own token',
        });
      }
      seen.add(entry.token);
      const groups = entry.groups?.length ? `,"${entry.groups.join(',')}"` : '';
      return `${entry.token},${entry.user},${entry.uid}${groups}\n`;
    })
    .join('');
}

/** The lines of a `--token-auth-file` CSV, to add to the generated file. */
export async function readTokenAuthFile(path: string): Promise<string> {
  try {
    const text = await readFile(path, 'utf8');
    return text.endsWith('\n') || text === '' ? text : `${text}\n`;
  } catch (error) {
    throw new TestEnvError('ERR_KEYMASTER_TESTENV_TOKENS', `cannot read tokenAuthFile ${path}`, {
      hint: 'pass an existing CSV file in the kube-apiserver --token-auth-file format',
      cause: error,
    });
  }
}
