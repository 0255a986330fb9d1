import { expect } from 'chai';
import { call, startTestCluster, type TestCluster } from '../helpers/emulator.js';

const PATH = '/apis/infrastructure.keymaster.dev/v1beta1/namespaces/default/awsclusters';
const warning = (name: string, dotted: boolean) =>
  `299 - ${JSON.stringify(`metadata.finalizers: "${name}": prefer a domain-qualified finalizer name${dotted ? ' including a path (/)' : ''} to avoid accidental conflicts with other finalizer writers`)}`;

/** kube-apiserver's words (apiextensions-apiserver's validateKubeFinalizerName, the same from 1.33 to 1.37). */
describe('finalizer names a custom resource gains: warned about as kube-apiserver warns', function () {
  let cluster: TestCluster;
  before(async () => (cluster = await startTestCluster()));
  after(() => cluster.stop());

  const cr = (name: string, finalizers: string[]) => ({
    apiVersion: 'infrastructure.keymaster.dev/v1beta1',
    kind: 'AWSCluster',
    metadata: { name, finalizers },
    spec: { region: 'us-west-2' },
  });

  it('on create: each name without a path but standard ones, sorted, in one Warning header each', async () => {
    const created = await call(
      cluster.emulator,
      'POST',
      PATH,
      cr('warned', ['zeta', 'awscluster.infrastructure.keymaster.dev', 'example.com/fine', 'orphan']),
    );
    expect(created.status).to.equal(201);
    expect(created.headers.get('warning')).to.equal(
      [warning('awscluster.infrastructure.keymaster.dev', true), warning('zeta', false)].join(', '),
    );
    const quiet = await call(cluster.emulator, 'POST', PATH, cr('quiet', ['infrastructure.keymaster.dev/awscluster']));
    expect(quiet.status).to.equal(201);
    expect(quiet.headers.get('warning')).to.equal(null);
  });

  it('on update and patch: only the names added', async () => {
    const patched = await call(
      cluster.emulator,
      'PATCH',
      `${PATH}/warned`,
      { metadata: { finalizers: ['zeta', 'awscluster.infrastructure.keymaster.dev', 'new.example.com'] } },
      { 'Content-Type': 'application/merge-patch+json' },
    );
    expect(patched.status).to.equal(200);
    expect(patched.headers.get('warning')).to.equal(warning('new.example.com', true));
    const status = await call(
      cluster.emulator,
      'PATCH',
      `${PATH}/warned/status`,
      { status: { accountID: '111111111111' } },
      { 'Content-Type': 'application/merge-patch+json' },
    );
    expect(status.status).to.equal(200);
    expect(status.headers.get('warning')).to.equal(null);
  });

  it('never for a built-in kind, which refuses such names instead', async () => {
    const refused = await call(cluster.emulator, 'POST', '/api/v1/namespaces/default/configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', finalizers: ['plain.example.com'] },
    });
    expect(refused.status).to.equal(422);
    expect(refused.headers.get('warning')).to.equal(null);
  });
});
