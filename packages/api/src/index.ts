export * from './constants.js';
export * from './aws-budgets.js';
export { KeymasterError } from './errors.js';
export { characterCount } from './characters.js';
export { displayText, quoteText } from './display.js';
export type { ObjectMeta, OwnerReference } from './meta.js';
export type * from './generated/types.js';
export { KINDS } from './schema/index.js';
export {
  DEFAULT_CREDENTIALS_DURATION_SECONDS,
  DEFAULT_RENEW_AT_PERCENT,
  SESSION_POLICY_MAX_CHARACTERS,
  sessionPolicyDocument,
  sessionPolicyOf,
  type SessionPolicy,
} from './credentials/session-policy.js';
export {
  checkCredentialsRequest,
  InvalidCredentialsRequestError,
  type CredentialsRequestContext,
  type CredentialsRequestProblem,
} from './credentials/check.js';
export type { KindDefinition, PrinterColumn } from './schema/kind.js';
export type { JSONSchemaProps, ValidationRule } from './schema/openapi.js';
export {
  LIMITS,
  TAG_CHARACTERS,
  REGION,
  ROLE_ARN,
  ACCOUNT_ID,
  EXTERNAL_ID,
  LABEL_VALUE,
  compilePattern,
} from './schema/patterns.js';
export { RESERVED_TAG_DOMAINS, RESERVED_TAG_KEYS } from './schema/reserved-tags.js';
export { CLUSTER_API_LAYER, TAG_LAYERS } from './schema/fields.js';
export {
  customResourceDefinition,
  customResourceDefinitions,
  objectSchema,
  type CustomResourceDefinition,
} from './crds.js';
export {
  assertValidObject,
  checkSchema,
  formatCause,
  InvalidObjectError,
  validateObject,
  type FieldCause,
  type SchemaCheckOptions,
  type ValidateOptions,
} from './validation/index.js';
export * from './iam/index.js';
export * from './conditions.js';
export * from './events.js';
