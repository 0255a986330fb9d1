import { expect } from 'chai';
import { KubeEmulatorError } from '../../src/index.js';
import { call, startTestCluster, type TestCluster } from '../helpers/emulator.js';
import { openWatch, until } from '../helpers/watch.js';

describe('faults and request statistics', function () {
  this.timeout(10_000);
  let cluster: TestCluster;

  before(async () => {
    cluster = await startTestCluster({ crds: undefined });
  });
  after(() => cluster.stop());
  afterEach(() => cluster.emulator.faults.clear());

  it('fails matching requests with an error status, at a rate', async () => {
    const { faults } = cluster.emulator;
    faults.add({ verb: 'create', resource: 'configmaps', error: { code: 500 } });
    const failed = await call(cluster.emulator, 'POST', '/api/v1/namespaces/default/configmaps', {
      metadata: { name: 'x' },
    });
    expect(failed.status).to.equal(500);
    expect(failed.body).to.include({ kind: 'Status', reason: 'InternalError' });
    expect(
      (await call(cluster.emulator, 'POST', '/api/v1/namespaces/default/secrets', { metadata: { name: 'x' } })).status,
    ).to.equal(201);
    faults.clear();
    const never = faults.add({ verb: 'list', error: { code: 503 }, rate: 0 });
    expect((await call(cluster.emulator, 'GET', '/api/v1/namespaces')).status).to.equal(200);
    const limited = faults.add({ verb: 'get', error: { code: 429 }, times: 1 });
    expect((await call(cluster.emulator, 'GET', '/api/v1/namespaces/default')).body).to.nested.include({
      reason: 'TooManyRequests',
      'details.retryAfterSeconds': 1,
    });
    expect((await call(cluster.emulator, 'GET', '/api/v1/namespaces/default')).status).to.equal(200);
    expect(faults.list().map((fault) => [fault.id, fault.hits])).to.deep.equal([
      [never.id, 0],
      [limited.id, 1],
    ]);
  });

  it('adds latency to matching requests', async () => {
    const slow = cluster.emulator.faults.add({ verb: 'get', resource: 'namespaces', latencyMs: 50 });
    expect((await call(cluster.emulator, 'GET', '/api/v1/namespaces/default')).status).to.equal(200);
    expect(cluster.emulator.faults.list().find((fault) => fault.id === slow.id)?.hits).to.equal(1);
  });

  it('drops watches now and every N seconds', async () => {
    const watch = await openWatch(cluster.emulator, '/api/v1/namespaces/default/configmaps?watch=true');
    expect(cluster.emulator.faults.dropWatchesNow('configmaps')).to.equal(1);
    await watch.ended;
    cluster.emulator.faults.add({ resource: 'secrets', dropWatchesEverySeconds: 0.1 });
    const periodic = await openWatch(cluster.emulator, '/api/v1/namespaces/default/secrets?watch=true');
    await periodic.ended;
  });

  it('rejects faults that make no sense, naming the field', () => {
    expect(() => cluster.emulator.faults.add({ error: { code: 200 } })).to.throw(
      KubeEmulatorError,
      'fault error.code is 200',
    );
    expect(() => cluster.emulator.faults.add({ latencyMs: 5, rate: 2 })).to.throw(KubeEmulatorError, 'fault rate is 2');
    expect(() => cluster.emulator.faults.add({ verb: 'get' })).to.throw(KubeEmulatorError, 'does nothing');
  });

  it('counts requests per verb, resource and user, in the library and under /_emulator', async () => {
    const { stats } = cluster.emulator;
    stats.reset();
    await call(cluster.emulator, 'GET', '/api/v1/namespaces');
    await call(cluster.emulator, 'GET', '/api/v1/namespaces');
    await call(cluster.emulator, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'counted' } });
    expect(stats.requests({ resource: 'namespaces' })).to.deep.equal([
      { verb: 'list', resource: 'namespaces', user: 'admin', count: 2, forbidden: 0 },
    ]);
    expect(stats.total({ verb: 'create' })).to.equal(1);
    const admin = await call(cluster.emulator, 'GET', '/_emulator/stats');
    expect(admin.body).to.nested.include({ total: 3, 'requests[0].count': 2 });
    expect((await call(cluster.emulator, 'DELETE', '/_emulator/stats')).status).to.equal(200);
    expect(stats.total()).to.equal(0);
  });

  it('manages faults under /_emulator/faults', async () => {
    const created = await call(cluster.emulator, 'POST', '/_emulator/faults', {
      verb: 'delete',
      error: { code: 409, message: 'busy' },
    });
    expect(created.status).to.equal(201);
    const id = (created.body as { id: string }).id;
    expect((await call(cluster.emulator, 'DELETE', '/api/v1/namespaces/default/configmaps/counted')).body).to.include({
      code: 409,
      message: 'busy',
    });
    expect((await call(cluster.emulator, 'GET', '/_emulator/faults')).body).to.nested.include({ 'faults[0].hits': 1 });
    expect((await call(cluster.emulator, 'POST', '/_emulator/faults', { rate: 5 })).status).to.equal(400);
    await call(cluster.emulator, 'DELETE', `/_emulator/faults/${id}`);
    expect((await call(cluster.emulator, 'DELETE', '/api/v1/namespaces/default/configmaps/counted')).status).to.equal(
      200,
    );
    const watch = await openWatch(cluster.emulator, '/api/v1/namespaces/default/secrets?watch=true');
    await until(() => cluster.emulator.faults.list().length === 0, 'no faults');
    expect((await call(cluster.emulator, 'POST', '/_emulator/watches/drop?resource=secrets')).body).to.deep.equal({
      dropped: 1,
    });
    await watch.ended;
  });
});
