import { expect } from 'chai';
import { crdCauses } from '../../src/resources/crd-definition.js';
import type { JsonObject } from '../../src/util/json.js';

const crd = (schema: JsonObject): JsonObject => ({
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
    scope: 'Namespaced',
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }],
  },
});

const causesOf = (schema: JsonObject): string[] =>
  crdCauses(crd(schema)).map((cause) => `${cause.field}: ${cause.message}`);

/** What kube-apiserver 1.37 refuses in a CRD's schema (the fidelity corpus's answers). */
describe('CustomResourceDefinition schemas', () => {
  it('refuses a node that declares fields but no type', () => {
    expect(causesOf({ type: 'object', properties: { spec: { properties: { a: { type: 'string' } } } } })).to.deep.equal(
      [
        'spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields',
      ],
    );
  });

  it('refuses a rule that does not compile, printing the rule as json.Marshal does (1.35 on)', () => {
    const [cause] = causesOf({
      type: 'object',
      properties: { spec: { type: 'object', 'x-kubernetes-validations': [{ rule: 'self.nothing(' }] } },
    });
    expect(cause).to.match(
      /^spec\.validation\.openAPIV3Schema\.properties\[spec\]\.x-kubernetes-validations\[0\]\.rule: Invalid value: \{"Rule":"self\.nothing\(","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null\}: compilation failed: .+$/,
    );
  });

  it('accepts typed schemas with rules that compile', () => {
    expect(
      causesOf({
        type: 'object',
        properties: {
          spec: {
            type: 'object',
            'x-kubernetes-validations': [{ rule: 'self.size() < 3', messageExpression: "'too big'" }],
          },
        },
      }),
    ).to.deep.equal([]);
  });
});
