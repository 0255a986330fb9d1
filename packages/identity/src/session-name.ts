import { createHash } from 'node:crypto';

const MAX_LENGTH = 64;
const PREFIX = 'keymaster-';

/**
 * The RoleSessionName used when an identity sets none: `keymaster-<identity name>`, made of the
 * characters STS accepts and, when too long, shortened with a hash so that it stays unique and
 * stable. CloudTrail shows it, so it tells which identity acted.
 */
export function defaultSessionName(identityName: string): string {
  const name = `${PREFIX}${identityName.replace(/[^\w+=,.@-]/g, '-')}`;
  if (name.length <= MAX_LENGTH) return name;
  const hash = createHash('sha256').update(identityName).digest('hex').slice(0, 8);
  return `${name.slice(0, MAX_LENGTH - hash.length - 1)}-${hash}`;
}
