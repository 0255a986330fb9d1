import { compilePattern, EXTERNAL_ID, LIMITS } from '@keymaster/api';
import { SecretInvalidError, type LinkName, type SecretUse } from './errors.js';

const [MIN_LENGTH, MAX_LENGTH] = LIMITS.externalIdLength;
const DESCRIPTION = `${MIN_LENGTH}-${MAX_LENGTH} characters of letters, digits and _+=,.@:/-`;

/** A role identity's externalID Secret, for messages. */
export const externalIDSecret = (key: string): SecretUse => ({
  field: 'spec.externalIDSecretRef',
  holds: `the role's externalID (as its trust policy's sts:ExternalId requires it: ${DESCRIPTION}) under the key ${key}`,
});

/**
 * Reads an externalID from a Secret's (base64) data, checked as the schema checks spec.externalID:
 * a value AWS would refuse is refused here, before AWS could repeat it in an error. Errors name the
 * key, never the value.
 */
export function externalIDFromSecret(
  link: LinkName,
  secretName: string,
  key: string,
  data: Record<string, string>,
): string {
  const value = data[key] === undefined ? '' : Buffer.from(data[key], 'base64').toString('utf8').trim();
  const problem = !value
    ? `key ${key} is missing or empty`
    : value.length < MIN_LENGTH || value.length > MAX_LENGTH || !compilePattern(EXTERNAL_ID).test(value)
      ? `key ${key} does not hold an externalID (${DESCRIPTION})`
      : undefined;
  if (problem) throw new SecretInvalidError(link, secretName, externalIDSecret(key), [problem]);
  return value;
}
