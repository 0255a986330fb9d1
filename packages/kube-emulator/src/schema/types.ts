import type { Json } from '../util/json.js';

/** A CEL rule of `x-kubernetes-validations`. */
export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

/**
 * A structural schema node (OpenAPI v3 with the Kubernetes extensions), as CRDs carry it in
 * `openAPIV3Schema` and as the emulator describes its built-in kinds.
 */
export interface Schema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  description?: string;
  format?: string;
  title?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  items?: Schema;
  required?: string[];
  enum?: Json[];
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minProperties?: number;
  maxProperties?: number;
  nullable?: boolean;
  default?: Json;
  allOf?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  not?: Schema;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-validations'?: ValidationRule[];
  /** Strategic merge patch metadata of built-in kinds. */
  'x-kubernetes-patch-merge-key'?: string;
  'x-kubernetes-patch-strategy'?: string;
}

/** The schema of a property of an object node: a declared property, or the additionalProperties schema. */
export function propertySchema(schema: Schema | undefined, key: string): Schema | undefined {
  if (!schema) return undefined;
  const declared = schema.properties?.[key];
  if (declared) return declared;
  return typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
}

/** Whether unknown fields below this node are kept (pruning and strict validation skip them). */
export const preservesUnknown = (schema: Schema | undefined): boolean =>
  schema === undefined || schema['x-kubernetes-preserve-unknown-fields'] === true;
