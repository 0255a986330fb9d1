import { expect } from 'chai';
import { call, startTestCluster, type TestCluster } from '../helpers/emulator.js';

const QUOTAS = '/api/v1/namespaces/default/resourcequotas';
const CMS = '/api/v1/namespaces/default/configmaps';
const COUNT = 'count/configmaps';

interface Quota {
  status?: { hard?: Record<string, string>; used?: Record<string, string> };
}

describe('ResourceQuota object counts: admission and the resourcequota controller', function () {
  this.timeout(10_000);
  let cluster: TestCluster;
  const quota = async (name: string): Promise<Quota> =>
    (await call(cluster.emulator, 'GET', `${QUOTAS}/${name}`)).body as Quota;
  /** Waits, as a client would, until the quota's status says `used` of configmaps. */
  const usedBecomes = async (name: string, used: string): Promise<void> => {
    for (let attempt = 0; attempt < 500; attempt++) {
      if ((await quota(name)).status?.used?.[COUNT] === used) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`quota ${name} never used ${used}: ${JSON.stringify(await quota(name))}`);
  };
  const createMap = (name: string, query = '') =>
    call(cluster.emulator, 'POST', `${CMS}${query}`, { metadata: { name } });

  beforeEach(async () => {
    cluster = await startTestCluster({ crds: undefined });
  });
  afterEach(() => cluster.stop());

  it('fills status with the hard limits and the usage, refuses a create past the limit, and gives back deletes', async () => {
    await createMap('before');
    const created = await call(cluster.emulator, 'POST', QUOTAS, {
      metadata: { name: 'maps' },
      spec: { hard: { [COUNT]: 3 } },
      status: { hard: { [COUNT]: '100' }, used: { [COUNT]: '0' } },
    });
    expect(created.status).to.equal(201);
    expect((created.body as Quota).status, 'a created quota has an empty status').to.deep.equal({});
    await usedBecomes('maps', '1');
    expect((await quota('maps')).status).to.deep.equal({ hard: { [COUNT]: '3' }, used: { [COUNT]: '1' } });

    expect((await createMap('dry', '?dryRun=All')).status).to.equal(201);
    expect((await quota('maps')).status?.used?.[COUNT], 'a dry run charges nothing').to.equal('1');
    expect((await createMap('second')).status).to.equal(201);
    expect((await quota('maps')).status?.used?.[COUNT], 'admission charges at once').to.equal('2');
    expect((await createMap('third')).status).to.equal(201);
    const refused = await createMap('fourth');
    expect(refused.status).to.equal(403);
    expect(refused.body).to.deep.include({
      reason: 'Forbidden',
      message: `configmaps "fourth" is forbidden: exceeded quota: maps, requested: ${COUNT}=1, used: ${COUNT}=3, limited: ${COUNT}=3`,
      details: { name: 'fourth', kind: 'configmaps' },
    });
    const generated = await call(cluster.emulator, 'POST', CMS, { metadata: { generateName: 'map-' } });
    expect((generated.body as { message: string }).message).to.match(
      /^configmaps "map-[a-z0-9]{5}" is forbidden: exceeded quota/,
    );
    expect(
      (await call(cluster.emulator, 'POST', '/api/v1/namespaces/kube-public/configmaps', { metadata: { name: 'x' } }))
        .status,
      'another namespace is not limited',
    ).to.equal(201);

    await call(cluster.emulator, 'DELETE', `${CMS}/third`);
    await usedBecomes('maps', '2');
    expect((await createMap('fourth')).status).to.equal(201);
  });

  it('refuses with "status unknown" while a limit has no usage in status', async () => {
    await call(cluster.emulator, 'POST', QUOTAS, { metadata: { name: 'maps' }, spec: { hard: { [COUNT]: '5' } } });
    await usedBecomes('maps', '0');
    const current = await quota('maps');
    const written = await call(cluster.emulator, 'PUT', `${QUOTAS}/maps/status`, {
      ...current,
      status: { hard: { [COUNT]: '5' } },
    });
    expect(written.status).to.equal(200);
    const refused = await createMap('one');
    expect(refused.status).to.equal(403);
    expect((refused.body as { message: string }).message).to.equal(
      `configmaps "one" is forbidden: status unknown for quota: maps, resources: ${COUNT}`,
    );
  });

  it('charges every quota that limits the resource, and none when one refuses', async () => {
    await call(cluster.emulator, 'POST', QUOTAS, { metadata: { name: 'wide' }, spec: { hard: { [COUNT]: '10' } } });
    await call(cluster.emulator, 'POST', QUOTAS, { metadata: { name: 'narrow' }, spec: { hard: { [COUNT]: '1' } } });
    await usedBecomes('wide', '0');
    await usedBecomes('narrow', '0');
    expect((await createMap('one')).status).to.equal(201);
    expect((await createMap('two')).status).to.equal(403);
    expect((await quota('wide')).status?.used?.[COUNT]).to.equal('1');
    expect((await quota('narrow')).status?.used?.[COUNT]).to.equal('1');
  });
});
