import { isObject, type Json, type JsonObject } from '../util/json.js';
import { ProtoWriter } from './protobuf.js';

/** The media type of the protobuf `/openapi/v2` (kubectl asks for it as `...spec.v2@v1.0+protobuf`). */
export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

// Field numbers of gnostic's openapi_v2 messages (OpenAPIv2.proto).
const DOCUMENT = { swagger: 1, info: 2, paths: 8, definitions: 9 };
const INFO = { title: 1, version: 2 };
const SCHEMA = {
  ref: 1,
  format: 2,
  title: 3,
  description: 4,
  default: 5,
  multipleOf: 6,
  maximum: 7,
  exclusiveMaximum: 8,
  minimum: 9,
  exclusiveMinimum: 10,
  maxLength: 11,
  minLength: 12,
  pattern: 13,
  maxItems: 14,
  minItems: 15,
  uniqueItems: 16,
  maxProperties: 17,
  minProperties: 18,
  required: 19,
  enum: 20,
  additionalProperties: 21,
  type: 22,
  items: 23,
  allOf: 24,
  properties: 25,
  vendorExtension: 31,
};
const NAMED = { name: 1, value: 2 };
const ANY_YAML = 2;

const num = (value: Json | undefined): number | undefined => (typeof value === 'number' ? value : undefined);
const str = (value: Json | undefined): string | undefined => (typeof value === 'string' ? value : undefined);
const bool = (value: Json | undefined): boolean | undefined => (typeof value === 'boolean' ? value : undefined);

/** gnostic's Any carries values as YAML text; JSON is YAML. */
const any = (writer: ProtoWriter, field: number, value: Json): void => {
  writer.message(field, (inner) => inner.string(ANY_YAML, JSON.stringify(value)));
};

function writeSchema(writer: ProtoWriter, schema: JsonObject): void {
  writer
    .string(SCHEMA.ref, str(schema.$ref))
    .string(SCHEMA.format, str(schema.format))
    .string(SCHEMA.title, str(schema.title))
    .string(SCHEMA.description, str(schema.description));
  if (schema.default !== undefined) any(writer, SCHEMA.default, schema.default);
  writer
    .double(SCHEMA.multipleOf, num(schema.multipleOf))
    .double(SCHEMA.maximum, num(schema.maximum))
    .bool(SCHEMA.exclusiveMaximum, bool(schema.exclusiveMaximum))
    .double(SCHEMA.minimum, num(schema.minimum))
    .bool(SCHEMA.exclusiveMinimum, bool(schema.exclusiveMinimum))
    .int(SCHEMA.maxLength, num(schema.maxLength))
    .int(SCHEMA.minLength, num(schema.minLength))
    .string(SCHEMA.pattern, str(schema.pattern))
    .int(SCHEMA.maxItems, num(schema.maxItems))
    .int(SCHEMA.minItems, num(schema.minItems))
    .bool(SCHEMA.uniqueItems, bool(schema.uniqueItems))
    .int(SCHEMA.maxProperties, num(schema.maxProperties))
    .int(SCHEMA.minProperties, num(schema.minProperties))
    .strings(SCHEMA.required, Array.isArray(schema.required) ? schema.required.map(String) : undefined);
  for (const value of Array.isArray(schema.enum) ? schema.enum : []) any(writer, SCHEMA.enum, value);
  const additional = schema.additionalProperties;
  if (isObject(additional))
    writer.message(SCHEMA.additionalProperties, (inner) => inner.message(1, (s) => writeSchema(s, additional)));
  else if (typeof additional === 'boolean')
    writer.message(SCHEMA.additionalProperties, (inner) => inner.bool(2, additional));
  if (typeof schema.type === 'string')
    writer.message(SCHEMA.type, (inner) => inner.strings(1, [schema.type as string]));
  if (isObject(schema.items))
    writer.message(SCHEMA.items, (inner) => inner.message(1, (s) => writeSchema(s, schema.items as JsonObject)));
  for (const sub of Array.isArray(schema.allOf) ? schema.allOf : [])
    if (isObject(sub)) writer.message(SCHEMA.allOf, (s) => writeSchema(s, sub));
  if (isObject(schema.properties)) {
    const properties = schema.properties;
    writer.message(SCHEMA.properties, (inner) => {
      for (const [name, property] of Object.entries(properties)) {
        if (isObject(property))
          inner.message(1, (named) =>
            named.string(NAMED.name, name).message(NAMED.value, (s) => writeSchema(s, property)),
          );
      }
    });
  }
  for (const [name, value] of Object.entries(schema)) {
    if (name.startsWith('x-'))
      writer.message(SCHEMA.vendorExtension, (named) => {
        named.string(NAMED.name, name);
        any(named, NAMED.value, value);
      });
  }
}

/** The swagger 2.0 document as gnostic protobuf, the form kubectl reads it in. */
export function encodeSwagger(document: JsonObject): Buffer {
  const writer = new ProtoWriter();
  const info = isObject(document.info) ? document.info : {};
  writer.string(DOCUMENT.swagger, '2.0');
  writer.message(DOCUMENT.info, (inner) =>
    inner.string(INFO.title, str(info.title)).string(INFO.version, str(info.version)),
  );
  writer.message(DOCUMENT.paths, () => undefined);
  const definitions = isObject(document.definitions) ? document.definitions : {};
  writer.message(DOCUMENT.definitions, (inner) => {
    for (const [name, schema] of Object.entries(definitions)) {
      if (isObject(schema))
        inner.message(1, (named) => named.string(NAMED.name, name).message(NAMED.value, (s) => writeSchema(s, schema)));
    }
  });
  return writer.finish();
}
