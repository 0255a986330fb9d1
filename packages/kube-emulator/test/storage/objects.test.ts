import { expect } from 'chai';
import { call, startTestCluster, type TestCluster } from '../helpers/emulator.js';

const BASE = '/apis/infrastructure.keymaster.dev/v1beta1';
const MERGE = { 'Content-Type': 'application/merge-patch+json' };

interface Meta {
  metadata: {
    name: string;
    resourceVersion: string;
    generation?: number;
    uid: string;
    deletionTimestamp?: string;
    finalizers?: string[];
  };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  items?: Meta[];
}

describe('object semantics', function () {
  this.timeout(10_000);
  let cluster: TestCluster;
  const roles = `${BASE}/awsclusterroleidentities`;
  const role = (name: string, spec: Record<string, unknown> = {}) => ({
    apiVersion: 'infrastructure.keymaster.dev/v1beta1',
    kind: 'AWSClusterRoleIdentity',
    metadata: { name },
    spec: { roleARN: 'arn:aws:iam::123456789012:role/r', ...spec },
  });
  const send = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await call(cluster.emulator, method, path, body, headers);
    return {
      ...response,
      body: response.body as Meta & {
        reason?: string;
        message?: string;
        details?: { causes?: { field: string; reason: string; message: string }[] };
      },
    };
  };

  before(async () => {
    cluster = await startTestCluster();
  });
  after(() => cluster.stop());

  it('sets uid, creationTimestamp and generation, and bumps generation on spec changes only', async () => {
    const created = await send('POST', roles, role('gen'));
    expect(created.status).to.equal(201);
    expect(created.body.metadata.generation).to.equal(1);
    const status = await send('PATCH', `${roles}/gen/status`, { status: { clusterCount: 2 } }, MERGE);
    expect(status.body.metadata.generation).to.equal(1);
    const labels = await send('PATCH', `${roles}/gen`, { metadata: { labels: { a: 'b' } } }, MERGE);
    expect(labels.body.metadata.generation).to.equal(1);
    const spec = await send('PATCH', `${roles}/gen`, { spec: { durationSeconds: 1800 } }, MERGE);
    expect(spec.body.metadata.generation).to.equal(2);
    expect(spec.body.status).to.deep.equal({ clusterCount: 2 });
  });

  it('keeps the resourceVersion on updates that change nothing', async () => {
    const before = await send('GET', `${roles}/gen`);
    const after = await send('PATCH', `${roles}/gen`, { spec: { durationSeconds: 1800 } }, MERGE);
    expect(after.body.metadata.resourceVersion).to.equal(before.body.metadata.resourceVersion);
  });

  it('requires and checks resourceVersion on PUT of custom resources', async () => {
    const current = (await send('GET', `${roles}/gen`)).body;
    const unconditional = await send('PUT', `${roles}/gen`, {
      ...current,
      metadata: { ...current.metadata, resourceVersion: '' },
    });
    expect(unconditional.status).to.equal(422);
    const stale = await send('PUT', `${roles}/gen`, {
      ...current,
      metadata: { ...current.metadata, resourceVersion: '1' },
    });
    expect(stale.status).to.equal(409);
    const patchStale = await send(
      'PATCH',
      `${roles}/gen`,
      { metadata: { resourceVersion: '1' }, spec: { durationSeconds: 900 } },
      MERGE,
    );
    expect(patchStale.body.reason).to.equal('Conflict');
  });

  it('applies defaults and prunes unknown fields, per fieldValidation', async () => {
    const withTags = role('defaults', { resourceTags: [{ key: 'team', value: 'a' }], unknownField: 1 });
    const warned = await send('POST', roles, withTags);
    expect(warned.status).to.equal(201);
    expect(warned.headers.get('warning')).to.equal('299 - "unknown field \\"spec.unknownField\\""');
    expect(warned.body.spec).to.deep.equal({
      roleARN: 'arn:aws:iam::123456789012:role/r',
      resourceTags: [{ key: 'team', value: 'a', overridePolicy: 'Allow' }],
    });
    const strict = await send('POST', `${roles}?fieldValidation=Strict`, {
      ...role('strict', { nope: true }),
      metadata: { name: 'strict', bogus: 1 },
    });
    expect(strict.status).to.equal(400);
    expect(strict.body.message).to.equal(
      'AWSClusterRoleIdentity in version "v1beta1" cannot be handled as a AWSClusterRoleIdentity: strict decoding error: unknown field "metadata.bogus", unknown field "spec.nope"',
    );
    const ignored = await send('POST', `${roles}?fieldValidation=Ignore`, role('ignored', { nope: true }));
    expect(ignored.headers.get('warning')).to.equal(null);
    expect(ignored.body.spec).to.not.have.property('nope');
  });

  it('validates schemas and CEL rules, with field causes', async () => {
    const invalid = await send(
      'POST',
      roles,
      role('bad', {
        durationSeconds: 60,
        sessionName: 'x',
        sourceIdentityRef: { kind: 'AWSClusterRoleIdentity', name: 'other' },
        transitiveTagKeys: ['missing'],
      }),
    );
    expect(invalid.status).to.equal(422);
    const causes = invalid.body.details!.causes!.map((cause) => `${cause.field}: ${cause.message}`);
    expect(causes).to.include.members([
      'spec.sessionName: Invalid value: "x": spec.sessionName in body should be at least 2 chars long',
      'spec.durationSeconds: Invalid value: 60: spec.durationSeconds in body should be greater than or equal to 900',
      'spec.transitiveTagKeys: Invalid value: every transitiveTagKeys entry must be the key of one of sessionTags',
    ]);
    const reserved = await send('POST', roles, role('aws', { resourceTags: [{ key: 'AWS:name', value: 'x' }] }));
    expect(reserved.body.details!.causes![0]).to.deep.include({
      field: 'spec.resourceTags[0].key',
      message: 'Invalid value: "AWS:name": tag keys starting with "aws:" are reserved by AWS',
    });
    const unicode = await send('POST', roles, role('unicode', { resourceTags: [{ key: 'équipe', value: 'données' }] }));
    expect(unicode.status).to.equal(201);
    const singleton = await send('POST', `${BASE}/awstagpolicies`, {
      apiVersion: 'infrastructure.keymaster.dev/v1beta1',
      kind: 'AWSTagPolicy',
      metadata: { name: 'second' },
      spec: {},
    });
    expect(singleton.body.message).to.contain('an AWSTagPolicy other than "default" tags the clusters it selects');
  });

  it('evaluates transition rules against the old object', async () => {
    const clusters = `${BASE}/namespaces/default/awsclusters`;
    const body = {
      apiVersion: 'infrastructure.keymaster.dev/v1beta1',
      kind: 'AWSCluster',
      metadata: { name: 'c' },
      spec: { region: 'eu-west-1', identityRef: { kind: 'AWSClusterStaticIdentity', name: 'i' }, clusterName: 'c' },
    };
    expect((await send('POST', clusters, body)).status).to.equal(201);
    const renamed = await send('PATCH', `${clusters}/c`, { spec: { clusterName: 'other' } }, MERGE);
    expect(renamed.status).to.equal(422);
    const unchanged = await send('PATCH', `${clusters}/c`, { spec: { region: 'us-east-1' } }, MERGE);
    expect(unchanged.status).to.equal(200);
  });

  it('lists with limit and continue', async () => {
    for (const name of ['page-a', 'page-b', 'page-c'])
      await send('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name, labels: { paged: 'yes' } } });
    const first = await send('GET', '/api/v1/namespaces/default/configmaps?labelSelector=paged&limit=2');
    const token = (first.body.metadata as unknown as { continue: string; remainingItemCount: number }).continue;
    expect(first.body.items!.map((item) => item.metadata.name)).to.deep.equal(['page-a', 'page-b']);
    // As etcd counts them, remaining items are known only when no selector filters them.
    expect(first.body.metadata).to.not.have.property('remainingItemCount');
    const second = await send(
      'GET',
      `/api/v1/namespaces/default/configmaps?labelSelector=paged&limit=2&continue=${encodeURIComponent(token)}`,
    );
    expect(second.body.items!.map((item) => item.metadata.name)).to.deep.equal(['page-c']);
    expect(second.body.metadata).to.not.have.property('continue');
    const byField = await send(
      'GET',
      '/api/v1/configmaps?fieldSelector=metadata.name%3Dpage-b,metadata.namespace%3Ddefault',
    );
    expect(byField.body.items!.map((item) => item.metadata.name)).to.deep.equal(['page-b']);
    expect((await send('GET', '/api/v1/configmaps?fieldSelector=data.x%3Dy')).status).to.equal(400);
  });

  it('lists at an exact resourceVersion of the past: the objects as they were then', async () => {
    const CMS = '/api/v1/namespaces/default/configmaps';
    const items = (answer: { body: Meta }) =>
      answer.body
        .items!.filter((item) => item.metadata.name.startsWith('past-'))
        .map((item) => [item.metadata.name, item.metadata.resourceVersion]);
    const then = await send('POST', CMS, { metadata: { name: 'past-then' }, data: { v: '1' } });
    const before = await send('GET', CMS);
    await send('POST', CMS, { metadata: { name: 'past-later' } });
    await send('PATCH', `${CMS}/past-then`, { data: { v: '2' } }, MERGE);
    const version = before.body.metadata.resourceVersion;
    const exact = await send('GET', `${CMS}?resourceVersion=${version}&resourceVersionMatch=Exact`);
    expect(exact.body.metadata.resourceVersion).to.equal(version);
    expect(items(exact)).to.deep.equal([['past-then', then.body.metadata.resourceVersion]]);
    // A resourceVersion with a limit reads exactly too; without, it is the latest (not older than it).
    expect(items(await send('GET', `${CMS}?resourceVersion=${version}&limit=50`))).to.deep.equal(items(exact));
    expect(items(await send('GET', `${CMS}?resourceVersion=${version}`)).map(([name]) => name)).to.deep.equal([
      'past-later',
      'past-then',
    ]);
    await send('DELETE', `${CMS}/past-then`);
    const deleted = await send('GET', `${CMS}?resourceVersion=${version}&resourceVersionMatch=Exact`);
    expect(items(deleted)).to.deep.equal(items(exact));
    // Past the history the emulator keeps (etcd's compaction), the list is 410 Expired.
    const small = await startTestCluster({ watchHistory: 5 });
    try {
      for (let index = 0; index < 10; index++)
        await call(small.emulator, 'POST', CMS, { metadata: { name: `past-${index}` } });
      const tooOld = await call(small.emulator, 'GET', `${CMS}?resourceVersion=2&resourceVersionMatch=Exact`);
      expect(tooOld.status).to.equal(410);
      expect(tooOld.body).to.deep.include({
        reason: 'Expired',
        message: 'The resourceVersion for the provided list is too old.',
      });
    } finally {
      await small.stop();
    }
  });

  it("serves the pages of a continued list from one snapshot, the first page's resourceVersion", async () => {
    const CMS = '/api/v1/namespaces/default/configmaps';
    for (const name of ['snap-a', 'snap-b', 'snap-c'])
      await send('POST', CMS, { metadata: { name, labels: { snapshot: 'yes' } } });
    const first = await send('GET', `${CMS}?labelSelector=snapshot&limit=2`);
    const token = (first.body.metadata as unknown as { continue: string }).continue;
    await send('POST', CMS, { metadata: { name: 'snap-bb', labels: { snapshot: 'yes' } } });
    await send('DELETE', `${CMS}/snap-c`);
    const second = await send('GET', `${CMS}?labelSelector=snapshot&limit=2&continue=${encodeURIComponent(token)}`);
    expect(second.body.items!.map((item) => item.metadata.name)).to.deep.equal(['snap-c']);
    expect(second.body.metadata.resourceVersion).to.equal(first.body.metadata.resourceVersion);
    // Past the history, 410 with a token that continues at the latest state.
    const small = await startTestCluster({ watchHistory: 5 });
    try {
      for (const name of ['old-a', 'old-b', 'old-c']) await call(small.emulator, 'POST', CMS, { metadata: { name } });
      const page = (await call(small.emulator, 'GET', `${CMS}?limit=1`)).body as { metadata: { continue: string } };
      for (let index = 0; index < 10; index++)
        await call(small.emulator, 'POST', CMS, { metadata: { name: `new-${index}` } });
      const expired = await call(small.emulator, 'GET', `${CMS}?limit=1&continue=${page.metadata.continue}`);
      expect(expired.status).to.equal(410);
      const status = expired.body as { message: string; metadata: { continue: string } };
      expect(status.message).to.match(
        /^The provided continue parameter is too old to display a consistent list result\./,
      );
      const rest = await call(small.emulator, 'GET', `${CMS}?continue=${status.metadata.continue}`);
      expect((rest.body as Meta).items!.map((item) => item.metadata.name)).to.deep.equal(['old-b', 'old-c']);
    } finally {
      await small.stop();
    }
  });

  it('pages unfiltered lists with remainingItemCount; resourceVersion=0 and negative limits do not page', async () => {
    await send('POST', '/api/v1/namespaces', { metadata: { name: 'paging' } });
    for (const name of ['a', 'b', 'c'])
      await send('POST', '/api/v1/namespaces/paging/configmaps', { metadata: { name }, data: { n: name } });
    const first = await send('GET', '/api/v1/namespaces/paging/configmaps?limit=2');
    expect(first.body.metadata).to.include({ remainingItemCount: 1 });
    for (const query of ['limit=1&resourceVersion=0', 'limit=-1']) {
      const all = await send('GET', `/api/v1/namespaces/paging/configmaps?${query}`);
      expect(all.status, query).to.equal(200);
      expect(all.body.items, query).to.have.length(3);
      expect(all.body.metadata, query).to.not.have.property('continue');
    }
  });

  it('writes list items of built-in kinds without apiVersion and kind, and custom resource lists with continue', async () => {
    const configMaps = await send('GET', '/api/v1/namespaces/paging/configmaps');
    expect(configMaps.body).to.include({ kind: 'ConfigMapList', apiVersion: 'v1' });
    expect(configMaps.body.items![0]).to.not.have.any.keys('apiVersion', 'kind');
    const identities = (await send('GET', roles)).body as unknown as {
      metadata: Record<string, unknown>;
      items: Record<string, unknown>[];
    };
    expect(identities.metadata).to.include({ continue: '' });
    expect(identities.items[0]).to.include({ apiVersion: 'infrastructure.keymaster.dev/v1beta1' });
    const swept = await send('DELETE', '/api/v1/namespaces/paging/configmaps?labelSelector=!kept');
    expect(swept.body.items!.map((item) => item.metadata.name)).to.deep.equal(['a', 'b', 'c']);
    expect(swept.body.items![0]).to.not.have.any.keys('apiVersion', 'kind');
    expect(swept.body.metadata.resourceVersion).to.be.a('string');
  });

  it('drops the empty lists and maps of built-in kinds and of metadata (Go omitempty), not empty structs', async () => {
    const created = await send('POST', '/api/v1/namespaces/default/configmaps', {
      metadata: { name: 'empty', labels: {}, annotations: {}, finalizers: [] },
      data: {},
    });
    expect(created.body).to.not.have.property('data');
    expect(created.body.metadata).to.not.have.any.keys('labels', 'annotations', 'finalizers');
    const deployment = await send('POST', '/apis/apps/v1/namespaces/default/deployments', {
      metadata: { name: 'structs' },
      spec: {
        selector: { matchLabels: { app: 'x' } },
        template: {
          metadata: { labels: { app: 'x' } },
          spec: { containers: [{ name: 'x', image: 'x', env: [] }], securityContext: {} },
        },
      },
    });
    const pod = (deployment.body.spec as { template: { spec: Record<string, unknown> & { containers: object[] } } })
      .template.spec;
    expect(pod.securityContext).to.deep.equal({});
    expect(pod.containers[0]).to.not.have.property('env');
  });

  it('answers a delete with a Status, except for the kinds that return the deleted object', async () => {
    await send('POST', roles, role('gone'));
    const custom = await send('DELETE', `${roles}/gone`);
    expect(custom.body).to.deep.include({ kind: 'Status', status: 'Success' });
    await send('POST', '/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'robot' } });
    const account = await send('DELETE', '/api/v1/namespaces/default/serviceaccounts/robot');
    expect(account.body).to.include({ kind: 'ServiceAccount' });
    await send('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'plain' } });
    const plain = await send('DELETE', '/api/v1/namespaces/default/configmaps/plain');
    expect(plain.body).to.include({ kind: 'Status' });
  });

  it('holds deleted objects until their finalizers are removed', async () => {
    await send('POST', roles, { ...role('held'), metadata: { name: 'held', finalizers: ['keymaster.dev/cleanup'] } });
    const deleting = await send('DELETE', `${roles}/held`);
    expect(deleting.body.metadata.deletionTimestamp).to.be.a('string');
    const added = await send(
      'PATCH',
      `${roles}/held`,
      { metadata: { finalizers: ['keymaster.dev/cleanup', 'more'] } },
      MERGE,
    );
    expect(added.status).to.equal(422);
    await send('PATCH', `${roles}/held`, { metadata: { finalizers: null } }, MERGE);
    expect((await send('GET', `${roles}/held`)).status).to.equal(404);
  });

  it('refuses new objects in missing and terminating namespaces', async () => {
    expect(
      (await send('POST', '/api/v1/namespaces/nowhere/configmaps', { metadata: { name: 'x' } })).body.message,
    ).to.equal('namespaces "nowhere" not found');
    await send('POST', '/api/v1/namespaces', { metadata: { name: 'closing' } });
    await send('POST', '/api/v1/namespaces/closing/configmaps', {
      metadata: { name: 'held', finalizers: ['keymaster.dev/hold'] },
    });
    await send('DELETE', '/api/v1/namespaces/closing');
    const refused = await send('POST', '/api/v1/namespaces/closing/configmaps', { metadata: { name: 'late' } });
    expect(refused.status).to.equal(403);
    expect(refused.body.message).to.contain('because it is being terminated');
    expect((await send('GET', '/api/v1/namespaces/closing')).body.status).to.deep.include({ phase: 'Terminating' });
    await send('PATCH', '/api/v1/namespaces/closing/configmaps/held', { metadata: { finalizers: null } }, MERGE);
    for (let attempt = 0; attempt < 100 && (await send('GET', '/api/v1/namespaces/closing')).status === 200; attempt++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect((await send('GET', '/api/v1/namespaces/closing')).status).to.equal(404);
  });
});
