import { expect } from 'chai';
import { configMaps, secrets } from '../../src/resources/builtins/core.js';
import { goTypeError } from '../../src/schema/go-types.js';
import { call, startTestCluster, type TestCluster } from '../helpers/emulator.js';

describe("built-in kinds' fields of the wrong JSON type: Go's decoding error, as kube-apiserver 1.37 answers", function () {
  this.timeout(10_000);
  let cluster: TestCluster;

  before(async () => {
    cluster = await startTestCluster();
  });
  after(() => cluster.stop());

  it('names the Go struct field and its type: a map entry by its map, an integer shown with its value', () => {
    expect(goTypeError('ConfigMap', configMaps.schema, { data: { a: 1 } })).to.equal(
      'json: cannot unmarshal number into Go struct field ConfigMap.data of type string',
    );
    expect(goTypeError('ConfigMap', configMaps.schema, { data: ['a'] })).to.equal(
      'json: cannot unmarshal array into Go struct field ConfigMap.data of type map[string]string',
    );
    expect(goTypeError('ConfigMap', configMaps.schema, { immutable: 'yes' })).to.equal(
      'json: cannot unmarshal string into Go struct field ConfigMap.immutable of type bool',
    );
    expect(goTypeError('Secret', secrets.schema, { data: { key: true } })).to.equal(
      'json: cannot unmarshal bool into Go struct field Secret.data of type []uint8',
    );
    expect(
      goTypeError('ConfigMap', configMaps.schema, { data: { a: '1' }, binaryData: null, immutable: true }),
    ).to.equal(undefined);
  });

  it('answers 400 BadRequest before validating', async () => {
    const answer = await call(cluster.emulator, 'POST', '/api/v1/namespaces/default/configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'number' },
      data: { a: 1 },
    });
    expect(answer.status).to.equal(400);
    expect(answer.body).to.deep.include({
      reason: 'BadRequest',
      message:
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string',
    });
  });
});
