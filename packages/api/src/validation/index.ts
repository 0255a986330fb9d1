import { API_VERSION } from '../constants.js';
import { objectSchema } from '../crds.js';
import { KeymasterError } from '../errors.js';
import { KINDS } from '../schema/index.js';
import type { JSONSchemaProps } from '../schema/openapi.js';
import { formatCause, quote, type FieldCause } from './cause.js';
import { checkSchema } from './validate.js';

export { checkSchema, type SchemaCheckOptions } from './validate.js';
export { formatCause, type FieldCause } from './cause.js';

export interface ValidateOptions {
  /** The stored object, for updates: immutability and other transition rules need it. */
  oldObject?: unknown;
  unknownFields?: 'reject' | 'ignore';
}

const schemas = new Map<string, JSONSchemaProps>(
  KINDS.map((definition) => [definition.kind, objectSchema(definition)]),
);

/**
 * Checks an object of one of our kinds against its CRD schema. Returns Kubernetes-style causes,
 * e.g. `spec.durationSeconds: Invalid value: 60: must be >= 900`; empty when the object is valid.
 */
export function validateObject(object: unknown, options: ValidateOptions = {}): FieldCause[] {
  const { apiVersion, kind } = (object ?? {}) as { apiVersion?: unknown; kind?: unknown };
  if (apiVersion !== API_VERSION) {
    return [
      {
        reason: 'FieldValueNotSupported',
        field: 'apiVersion',
        message: `Unsupported value: ${quote(apiVersion)}: supported values: "${API_VERSION}"`,
      },
    ];
  }
  const schema = schemas.get(kind as string);
  if (!schema) {
    const supported = [...schemas.keys()].map((name) => JSON.stringify(name)).join(', ');
    return [
      {
        reason: 'FieldValueNotSupported',
        field: 'kind',
        message: `Unsupported value: ${quote(kind)}: supported values: ${supported}`,
      },
    ];
  }
  return checkSchema(schema, object, '', {
    ...(options.oldObject === undefined ? {} : { oldValue: options.oldObject }),
    ...(options.unknownFields ? { unknownFields: options.unknownFields } : {}),
  });
}

export class InvalidObjectError extends KeymasterError {
  readonly causes: FieldCause[];

  constructor(description: string, causes: FieldCause[]) {
    super('ERR_KEYMASTER_INVALID_OBJECT', `${description} is invalid: ${causes.map(formatCause).join('; ')}`, {
      hint: 'Fix the fields named above; `kubectl explain <kind>.spec` describes every field and its bounds.',
    });
    this.causes = causes;
  }
}

/** Like validateObject, but throws InvalidObjectError naming every bad field. */
export function assertValidObject(object: unknown, options: ValidateOptions = {}): void {
  const causes = validateObject(object, options);
  if (causes.length === 0) return;
  const { kind, metadata } = (object ?? {}) as { kind?: string; metadata?: { name?: string } };
  throw new InvalidObjectError(`${kind ?? 'object'} "${metadata?.name ?? ''}"`, causes);
}
