import { expect } from 'chai';
import { age, humanDuration } from '../../src/table/age.js';
import { compileJsonPath } from '../../src/table/jsonpath.js';
import { call, startTestCluster, type TestCluster } from '../helpers/emulator.js';

describe('table printing', () => {
  it('formats ages like the apiserver', () => {
    const cases: [number, string][] = [
      [5_000, '5s'],
      [119_000, '119s'],
      [150_000, '2m30s'],
      [3 * 3600_000, '3h'],
      [3 * 3600_000 + 60_000, '3h1m'],
      [30 * 3600_000, '30h'],
      [50 * 3600_000, '2d2h'],
      [400 * 86400_000, '400d'],
      [800 * 86400_000, '2y70d'],
    ];
    for (const [milliseconds, text] of cases) expect(humanDuration(milliseconds)).to.equal(text);
    expect(age(undefined)).to.equal('<unknown>');
  });

  it('evaluates the JSONPath of printer columns', () => {
    const object = {
      status: {
        conditions: [
          { type: 'Synced', status: 'False' },
          { type: 'Ready', status: 'True' },
        ],
      },
      spec: { 'a.b': 1, list: [1, 2] },
    };
    expect(compileJsonPath('.status.conditions[?(@.type=="Ready")].status')(object)).to.deep.equal(['True']);
    expect(compileJsonPath(".spec['a.b']")(object)).to.deep.equal([1]);
    expect(compileJsonPath('.spec.list[1]')(object)).to.deep.equal([2]);
    expect(compileJsonPath('.spec.list[*]')(object)).to.deep.equal([1, 2]);
    expect(compileJsonPath('.spec.missing')(object)).to.deep.equal([]);
  });
});

describe('Tables as kube-apiserver 1.37 serves them', function () {
  this.timeout(10_000);
  let cluster: TestCluster;
  const TABLE = { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' };
  type Table = { metadata: Record<string, unknown>; columnDefinitions: { name: string; description: string }[] };
  const table = async (path: string) => (await call(cluster.emulator, 'GET', path, undefined, TABLE)).body as Table;

  before(async () => {
    cluster = await startTestCluster();
  });
  after(() => cluster.stop());

  it("describes columns with the documentation of the fields they show (ObjectMeta's, the kind's)", async () => {
    const columns = (await table('/api/v1/namespaces/default/configmaps')).columnDefinitions;
    const described = Object.fromEntries(columns.map(({ name, description }) => [name, description]));
    expect(described.Name).to.match(/^Name must be unique within a namespace\. Is required when creating resources/);
    expect(described.Data).to.match(/^Data contains the configuration data\. Each key must consist of/);
    expect(described.Age).to.match(
      /^CreationTimestamp is .*\n\nPopulated by the system\. Read-only\. Null for lists\./s,
    );
    const bindings = await table('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings');
    expect(bindings.columnDefinitions.find(({ name }) => name === 'Users')?.description).to.equal(
      'Users in the clusterRoleBinding',
    );
  });

  it("gives one object's Table its resourceVersion, and a list's no empty continue", async () => {
    const created = await call(cluster.emulator, 'POST', '/api/v1/namespaces/default/configmaps', {
      metadata: { name: 'one' },
    });
    const resourceVersion = (created.body as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    expect((await table('/api/v1/namespaces/default/configmaps/one')).metadata).to.deep.equal({ resourceVersion });
    const clusters = await table('/apis/infrastructure.keymaster.dev/v1beta1/namespaces/default/awsclusters');
    expect(clusters.metadata).to.have.property('resourceVersion');
    expect(clusters.metadata).to.not.have.property('continue');
  });
});
