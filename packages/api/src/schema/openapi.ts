/** The subset of apiextensions.k8s.io/v1 JSONSchemaProps that structural CRD schemas use. */
export interface JSONSchemaProps {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  description?: string;
  format?: string;
  properties?: Record<string, JSONSchemaProps>;
  required?: string[];
  items?: JSONSchemaProps;
  additionalProperties?: JSONSchemaProps;
  enum?: readonly (string | number | boolean)[];
  default?: unknown;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  minProperties?: number;
  maxProperties?: number;
  nullable?: boolean;
  'x-kubernetes-validations'?: ValidationRule[];
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-preserve-unknown-fields'?: boolean;
}

/** A CEL rule, as in `x-kubernetes-validations`. */
export interface ValidationRule {
  rule: string;
  message: string;
  reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
  fieldPath?: string;
}

type Constraints = Omit<JSONSchemaProps, 'type' | 'description' | 'properties' | 'items' | 'additionalProperties'>;

// TypeScript interface names for schemas that the type generator emits as named interfaces. Kept
// outside the schema objects so that they never leak into the CRDs.
const typeNames = new WeakMap<JSONSchemaProps, string>();

/** Gives a schema a TypeScript interface name in the generated types. */
export function named<S extends JSONSchemaProps>(name: string, schema: S): S {
  typeNames.set(schema, name);
  return schema;
}

export const typeNameOf = (schema: JSONSchemaProps): string | undefined => typeNames.get(schema);

export const string = (description: string, constraints: Constraints = {}): JSONSchemaProps => ({
  type: 'string',
  description,
  ...constraints,
});

export const integer = (description: string, constraints: Constraints = {}): JSONSchemaProps => ({
  type: 'integer',
  format: 'int64',
  description,
  ...constraints,
});

export const boolean = (description: string, constraints: Constraints = {}): JSONSchemaProps => ({
  type: 'boolean',
  description,
  ...constraints,
});

export const array = (description: string, items: JSONSchemaProps, constraints: Constraints = {}): JSONSchemaProps => ({
  type: 'array',
  description,
  items,
  ...constraints,
});

/** An object with named properties; `required` lists the properties that must be present. */
export const object = (
  description: string,
  properties: Record<string, JSONSchemaProps>,
  constraints: Constraints = {},
): JSONSchemaProps => ({ type: 'object', description, properties, ...constraints });

/** A map from string keys to values of one schema. */
export const map = (description: string, values: JSONSchemaProps, constraints: Constraints = {}): JSONSchemaProps => ({
  type: 'object',
  description,
  additionalProperties: values,
  ...constraints,
});
