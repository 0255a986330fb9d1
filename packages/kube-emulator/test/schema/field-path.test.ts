import { expect } from 'chai';
import type { Schema } from '../../src/schema/types.js';
import { call, startTestCluster, type TestCluster } from '../helpers/emulator.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const SPEC: Schema = {
  type: 'object',
  properties: {
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    list: { type: 'array', items: { type: 'string' } },
    size: { type: 'integer' },
  },
};
/** A rule that always holds: only its fieldPath matters here. */
const at = (fieldPath: string) => ({ rule: 'true', fieldPath });

const crd = (name: string, schema: Schema) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${name}s.example.com` },
  spec: {
    group: 'example.com',
    names: { plural: `${name}s`, kind: name.toUpperCase() },
    scope: 'Namespaced',
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }],
  },
});

interface Refusal {
  status: number;
  causes: { reason: string; field: string; message: string }[];
}

/**
 * The answers of kube-apiserver 1.37 to these CRDs (packages/testenv, checked with kubectl): a rule's
 * fieldPath must name a field its schema declares, or the CRD is refused.
 */
describe("CRD schemas: a rule's fieldPath must name a declared field", function () {
  let cluster: TestCluster;
  const create = async (name: string, schema: Schema): Promise<Refusal> => {
    const { status, body } = await call(cluster.emulator, 'POST', CRDS, crd(name, schema));
    return { status, causes: (body as { details?: { causes?: Refusal['causes'] } }).details?.causes ?? [] };
  };

  before(async () => {
    cluster = await startTestCluster({ crds: undefined });
  });
  after(() => cluster.stop());

  it('refuses .metadata.name when the schema does not declare metadata.name', async () => {
    const refused = await create('wa', {
      type: 'object',
      properties: { metadata: { type: 'object' }, spec: SPEC },
      'x-kubernetes-validations': [at('.metadata.name')],
    });
    expect(refused).to.deep.equal({
      status: 422,
      causes: [
        {
          reason: 'FieldValueInvalid',
          field: 'spec.validation.openAPIV3Schema.x-kubernetes-validations[0].fieldPath',
          message: 'Invalid value: ".metadata.name": must be a valid path',
        },
      ],
    });
  });

  it('accepts .metadata.name once declared, and map keys by name or in brackets', async () => {
    const declared = await create('wb', {
      type: 'object',
      properties: { metadata: { type: 'object', properties: { name: { type: 'string' } } }, spec: SPEC },
      'x-kubernetes-validations': [at('.metadata.name')],
    });
    expect(declared.status).to.equal(201);
    const maps = await create('wc', {
      type: 'object',
      properties: {
        spec: { ...SPEC, 'x-kubernetes-validations': [at(".labels['team']"), at('.labels.team'), at("['size']")] },
      },
    });
    expect(maps.status).to.equal(201);
  });

  it('refuses list indexes, unknown fields, paths without a leading dot and steps below a scalar, each named', async () => {
    const refused = await create('wd', {
      type: 'object',
      properties: {
        spec: { ...SPEC, 'x-kubernetes-validations': [at('.list[0]'), at('.missing'), at('size'), at('.size.x')] },
      },
    });
    expect(refused.status).to.equal(422);
    expect(refused.causes.map(({ field, message }) => `${field}: ${message}`)).to.deep.equal(
      ['.list[0]', '.missing', 'size', '.size.x'].map(
        (path, index) =>
          `spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[${index}].fieldPath: ` +
          `Invalid value: ${JSON.stringify(path)}: must be a valid path`,
      ),
    );
  });
});
