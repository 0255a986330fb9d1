import { expect } from 'chai';
import { checkRules, toCel } from '../../src/schema/cel.js';
import { applyDefaults } from '../../src/schema/default.js';
import { prune } from '../../src/schema/prune.js';
import type { Schema } from '../../src/schema/types.js';
import { validateObject } from '../../src/schema/validate.js';
import type { JsonObject } from '../../src/util/json.js';

const schema: Schema = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 2, maxLength: 5, pattern: '^\\p{L}+$' },
    count: { type: 'integer', minimum: 1, maximum: 10, default: 3 },
    mode: { type: 'string', enum: ['a', 'b'] },
    when: { type: 'string', format: 'date-time' },
    items: { type: 'array', maxItems: 2, 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
    entries: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['key'],
      items: { type: 'object', properties: { key: { type: 'string' }, value: { type: 'string', default: 'none' } } },
    },
    free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
  },
  'x-kubernetes-validations': [
    {
      rule: '!has(self.mode) || self.mode != "b" || self.count > 5',
      message: 'mode b needs count > 5',
      fieldPath: '.count',
    },
    { rule: '!has(oldSelf.name) || self.name == oldSelf.name', message: 'name is immutable' },
  ],
};

const root: Schema = { type: 'object', properties: { spec: schema, status: schema } };
const SKIPPED =
  '<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation';

const messages = (value: JsonObject, old?: JsonObject): string[] =>
  validateObject({ spec: value }, root, old && { spec: old }).map((cause) => `${cause.field}: ${cause.message}`);

describe('structural schemas', () => {
  it('checks the int32 and int64 formats of integers, which CRDs keep from 1.37 on', () => {
    const formatted: Schema = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            long: { type: 'integer', format: 'int64', minimum: 900 },
            short: { type: 'integer', format: 'int32' },
            plain: { type: 'integer' },
          },
        },
      },
    };
    const causes = (spec: JsonObject) =>
      validateObject({ spec }, formatted, undefined).map((cause) => `${cause.field}: ${cause.message}`);
    expect(causes({ long: 1.5, short: 2 ** 31, plain: 1.5 })).to.deep.equal([
      'spec.long: Invalid value: "float64": spec.long in body must be of type int64: "float64"',
      '<nil>: Invalid value: "": Checked value must be of type integer with format int64 in spec.long',
      'spec.long: Invalid value: 1.5: spec.long in body should be greater than or equal to 900',
      '<nil>: Invalid value: "": Checked value must be of type integer with format int32 in spec.short',
      'spec.plain: Invalid value: "number": spec.plain in body must be of type integer: "number"',
    ]);
    // What is neither a number nor a boolean or object keeps the integer's plain type check.
    expect(causes({ long: 'x', short: true })).to.deep.equal([
      'spec.long: Invalid value: "string": spec.long in body must be of type integer: "string"',
      'spec.short: Invalid value: "": spec.short in body must be of type int32: ""',
    ]);
    expect(causes({ long: 7200, short: -5, plain: 3 })).to.deep.equal([]);
  });

  it('reports the apiserver messages for each kind of violation', () => {
    expect(
      messages({
        count: 0,
        mode: 'c',
        when: 'yesterday',
        items: ['x', 'x', 'y'],
        entries: [{ key: 'a' }, { key: 'a' }],
      }),
    ).to.deep.equal([
      'spec.name: Required value',
      'spec.count: Invalid value: 0: spec.count in body should be greater than or equal to 1',
      'spec.mode: Unsupported value: "c": supported values: "a", "b"',
      'spec.when: Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday"',
      'spec.items: Too many: 3: must have at most 2 items',
      'spec.items[1]: Duplicate value: "x"',
      'spec.entries[1]: Duplicate value: {"key":"a"}',
      // A missing field, an unknown enum value or too many items block the CEL rules, as on kube-apiserver.
      SKIPPED,
    ]);
    expect(messages({ name: 'toolong1', count: 'x' })).to.deep.equal([
      // Too long: the pattern is not matched any more.
      'spec.name: Too long: may not be more than 5 bytes',
      'spec.count: Invalid value: "string": spec.count in body must be of type integer: "string"',
      SKIPPED,
    ]);
    expect(messages({ name: 'ab', count: 0.5, labels: { 'a b': 1 } })).to.deep.equal([
      'spec.count: Invalid value: "number": spec.count in body must be of type integer: "number"',
      'spec.count: Invalid value: 0.5: spec.count in body should be greater than or equal to 1',
      'spec.labels.a b: Invalid value: "integer": spec.labels.a b in body must be of type string: "integer"',
      SKIPPED,
    ]);
    expect(messages({ name: 'a1' })).to.deep.equal([
      'spec.name: Invalid value: "a1": spec.name in body should match \'^\\p{L}+$\'',
    ]);
  });

  it('validates a /status write by the status alone, naming paths from there in messages', () => {
    const causes = validateObject({ spec: { name: 'x1' }, status: { name: 'a1' } }, root, undefined, true);
    expect(causes.map((cause) => `${cause.field}: ${cause.message}`)).to.deep.equal([
      `status.name: Invalid value: "a1": name in body should match '^\\p{L}+$'`,
    ]);
  });

  it('reads patterns as Unicode', () => {
    expect(messages({ name: 'éte' })).to.deep.equal([]);
  });

  it('runs CEL rules, transition rules only with an old value, and ratchets unchanged values', () => {
    expect(messages({ name: 'ab', mode: 'b', count: 2 })).to.deep.equal([
      // A failed rule shows the value, left out for objects and lists (1.35 on).
      'spec.count: Invalid value: mode b needs count > 5',
    ]);
    expect(messages({ name: 'cd' }, { name: 'ab' })).to.deep.equal(['spec: Invalid value: name is immutable']);
    expect(messages({ name: 'a1', count: 2 }, { name: 'a1', count: 1 })).to.deep.equal([]);
  });

  it('converts integers to CEL ints and evaluation errors to causes', () => {
    expect(
      toCel(
        { count: 3, ratio: 0.5 },
        { type: 'object', properties: { count: { type: 'integer' }, ratio: { type: 'number' } } },
      ),
    ).to.deep.equal({ count: 3n, ratio: 0.5 });
    const causes = checkRules(
      { type: 'object', 'x-kubernetes-validations': [{ rule: 'self.missing == 1' }] },
      {},
      undefined,
      'spec',
    );
    expect(causes[0]?.message).to.match(/^Invalid value: "object": No such key: missing/);
  });

  it('prunes unknown fields (not below preserve-unknown-fields) and reports their paths', () => {
    const value: JsonObject = {
      name: 'ab',
      extra: 1,
      free: { anything: true },
      labels: { a: 'b' },
      entries: [{ key: 'k', junk: 1 }],
    };
    expect(prune(value, schema, 'spec')).to.deep.equal(['spec.extra', 'spec.entries[0].junk']);
    expect(value).to.deep.equal({ name: 'ab', free: { anything: true }, labels: { a: 'b' }, entries: [{ key: 'k' }] });
  });

  it('applies defaults, below defaulted and existing values too', () => {
    const value: JsonObject = { name: 'ab', entries: [{ key: 'k' }], mode: null };
    applyDefaults(value, schema);
    expect(value).to.deep.equal({ name: 'ab', count: 3, entries: [{ key: 'k', value: 'none' }] });
  });
});
