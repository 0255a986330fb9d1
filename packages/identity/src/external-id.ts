import {
  compilePattern,
  EXTERNAL_ID,
  ExternalIDConfidentialReason,
  LIMITS,
  type AWSClusterRoleIdentity,
  type ConditionUpdate,
} from '@keymaster/api';
import { SecretInvalidError, SecretNotFoundError, type LinkName, type SecretUse } from './errors.js';
import type { LoadContext } from './providers/provider.js';

// A role's externalID: read from the Secret its externalIDSecretRef names, and how it shows (never its value).

const [MIN_LENGTH, MAX_LENGTH] = LIMITS.externalIdLength;
const DESCRIPTION = `${MIN_LENGTH}-${MAX_LENGTH} characters of letters, digits and _+=,.@:/-`;

/** A role identity's externalID Secret, for messages. */
const externalIDSecret = (key: string): SecretUse => ({
  field: 'spec.externalIDSecretRef',
  holds: `the role's externalID (as its trust policy's sts:ExternalId requires it: ${DESCRIPTION}) under the key ${key}`,
});

/**
 * The externalID of the Secret a role's externalIDSecretRef names, from the controller's namespace
 * only; undefined when it names none (a plain spec.externalID is sent as it is).
 */
export async function loadExternalID(
  { spec }: AWSClusterRoleIdentity,
  { ref, store, controllerNamespace }: LoadContext,
): Promise<string | undefined> {
  if (!spec.externalIDSecretRef) return undefined;
  const { name, key } = spec.externalIDSecretRef;
  const secretName = `${controllerNamespace}/${name}`;
  const secret = await store.getSecret(controllerNamespace, name);
  if (!secret) throw new SecretNotFoundError(ref, secretName, externalIDSecret(key));
  return externalIDFromSecret(ref, secretName, key, secret.data);
}

/**
 * Reads an externalID from a Secret's (base64) data, checked as the schema checks spec.externalID:
 * a value AWS would refuse is refused here, before AWS could repeat it in an error. Errors name the
 * key, never the value.
 */
function externalIDFromSecret(link: LinkName, secretName: string, key: string, data: Record<string, string>): string {
  const value = data[key] === undefined ? '' : Buffer.from(data[key], 'base64').toString('utf8').trim();
  const problem = !value
    ? `key ${key} is missing or empty`
    : value.length < MIN_LENGTH || value.length > MAX_LENGTH || !compilePattern(EXTERNAL_ID).test(value)
      ? `key ${key} does not hold an externalID (${DESCRIPTION})`
      : undefined;
  if (problem) throw new SecretInvalidError(link, secretName, externalIDSecret(key), [problem]);
  return value;
}

/** Where the externalID the trust policy must require comes from, for the hint; never the value. */
export function externalIDSource({ spec }: AWSClusterRoleIdentity): string | undefined {
  if (spec.externalIDSecretRef)
    return `the externalID of Secret ${spec.externalIDSecretRef.name}, key ${spec.externalIDSecretRef.key}`;
  return spec.externalID === undefined ? undefined : 'exactly spec.externalID';
}

/**
 * Why a plain spec.externalID should move, and how: the message of its condition and, after the
 * identity's name, its admission warning.
 */
export const PLAIN_EXTERNAL_ID =
  "spec.externalID is readable by every tenant allowed to read identities (docs/security.md's keymaster-identity-viewer role): " +
  "with any principal the role trusts, it is all they need to assume it. Move it into a Secret of the controller's " +
  'namespace, set spec.externalIDSecretRef and remove spec.externalID (docs/operations.md#moving-externalids-to-secrets); ' +
  'then rotate it, since it was readable';

/** ExternalIDConfidential: whether the externalID the role sends is out of tenants' reach. */
export function externalIDConfidential({ spec }: AWSClusterRoleIdentity): ConditionUpdate {
  const type = 'ExternalIDConfidential' as const;
  if (spec.externalIDSecretRef)
    return {
      type,
      status: 'True',
      reason: ExternalIDConfidentialReason.ExternalIDInSecret,
      message: `The externalID is read from key ${spec.externalIDSecretRef.key} of Secret ${spec.externalIDSecretRef.name} in the controller's namespace, which tenants cannot read`,
    };
  if (spec.externalID !== undefined)
    return { type, status: 'False', reason: ExternalIDConfidentialReason.ExternalIDInSpec, message: PLAIN_EXTERNAL_ID };
  return {
    type,
    status: 'True',
    reason: ExternalIDConfidentialReason.NoExternalID,
    message: "No externalID is sent, so none can be read: the role's trust policy alone decides who may assume it",
  };
}
