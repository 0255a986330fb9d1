import { expect } from 'chai';
import { call, startTestCluster, type TestCluster } from '../helpers/emulator.js';

const CONFIG_MAPS = '/api/v1/namespaces/default/configmaps';
const POLICIES = '/apis/infrastructure.keymaster.dev/v1beta1/awstagpolicies';
const CLUSTERS = '/apis/infrastructure.keymaster.dev/v1beta1/namespaces/default/awsclusters';
const APPLY = { 'Content-Type': 'application/apply-patch+yaml' };
const MERGE = { 'Content-Type': 'application/merge-patch+json' };

interface Answer {
  status: number;
  body: {
    message?: string;
    details?: Record<string, unknown>;
    data?: Record<string, string>;
    spec?: { resourceTags?: { key: string }[] };
    metadata: {
      resourceVersion: string;
      managedFields?: { manager: string; operation: string; subresource?: string }[];
    };
  };
}

/** Server-side apply and update ownership as kube-apiserver 1.37 keeps it (the fidelity corpus's answers). */
describe('managedFields and server-side apply', function () {
  this.timeout(20_000);
  let cluster: TestCluster;
  const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    call(cluster.emulator, method, path, body, headers) as Promise<Answer>;
  const applyMap = (name: string, manager: string, data: Record<string, string>, query = '') =>
    send(
      'PATCH',
      `${CONFIG_MAPS}/${name}?fieldManager=${manager}${query}`,
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name },
        data,
      },
      APPLY,
    );
  const managers = (answer: Answer) =>
    (answer.body.metadata.managedFields ?? []).map(({ manager, operation, subresource }) =>
      [manager, operation, subresource].filter(Boolean).join('/'),
    );

  before(async () => {
    cluster = await startTestCluster();
  });
  after(() => cluster.stop());

  it('words conflicts as kube-apiserver does, with only causes in the details', async () => {
    await applyMap('one', 'alice', { a: '1' });
    const one = await applyMap('one', 'bob', { a: '2' });
    expect(one.status).to.equal(409);
    expect(one.body.message).to.equal('Apply failed with 1 conflict: conflict with "alice": .data.a');
    expect(one.body.details).to.deep.equal({
      causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.data.a' }],
    });
    await applyMap('two', 'alice', { a: '1', b: '1' });
    const two = await applyMap('two', 'bob', { a: '2', b: '2' });
    expect(two.body.message).to.equal('Apply failed with 2 conflicts: conflicts with "alice":\n- .data.a\n- .data.b');
    await send('POST', `${CONFIG_MAPS}?fieldManager=creator`, { metadata: { name: 'three' }, data: { a: '1' } });
    const updated = await applyMap('three', 'alice', { a: '2' });
    expect(updated.body.message).to.equal('Apply failed with 1 conflict: conflict with "creator" using v1: .data.a');
  });

  it('records a second applier of the same values (a write), and sorts entries Apply first', async () => {
    const first = await applyMap('shared', 'bob', { a: '1' });
    const second = await applyMap('shared', 'alice', { a: '1' });
    expect(second.body.metadata.resourceVersion).to.not.equal(first.body.metadata.resourceVersion);
    expect(managers(second)).to.deep.equal(['alice/Apply', 'bob/Apply']);
    const edited = await send('PATCH', `${CONFIG_MAPS}/shared?fieldManager=editor`, { data: { b: '2' } }, MERGE);
    expect(managers(edited)).to.deep.equal(['alice/Apply', 'bob/Apply', 'editor/Update']);
    const again = await applyMap('shared', 'alice', { a: '1' });
    expect(again.body.metadata.resourceVersion).to.equal(edited.body.metadata.resourceVersion);
  });

  it('stamps an applier with a time only when its apply changes the object', async () => {
    const entry = (answer: Answer, manager: string) =>
      (answer.body.metadata.managedFields as { manager: string; time?: string }[]).find(
        (field) => field.manager === manager,
      );
    const first = await applyMap('timed', 'bob', { a: '1' });
    const bobTime = entry(first, 'bob')?.time;
    expect(bobTime).to.be.a('string');
    // A second applier of the values already there changes no value: its entry has no time.
    const shared = await applyMap('timed', 'alice', { a: '1' });
    expect(entry(shared, 'alice')).to.not.have.property('time');
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const again = await applyMap('timed', 'bob', { a: '1' });
    expect(entry(again, 'bob')?.time).to.equal(bobTime);
    const changed = await applyMap('timed', 'bob', { a: '2' }, '&force=true');
    expect(entry(changed, 'bob')?.time).to.not.equal(bobTime);
  });

  it('does not start managedFields on an update of an object that has none', async () => {
    await send('POST', CONFIG_MAPS, { metadata: { name: 'bare' } });
    const updated = await send('PATCH', `${CONFIG_MAPS}/bare`, { data: { a: '1' } }, MERGE);
    expect(updated.body.data).to.deep.equal({ a: '1' });
    expect(updated.body.metadata).to.not.have.property('managedFields');
  });

  it('records an apply to /status under the status subresource', async () => {
    await send('POST', CLUSTERS, { metadata: { name: 's' }, spec: { region: 'eu-west-1' } });
    const applied = await send(
      'PATCH',
      `${CLUSTERS}/s/status?fieldManager=controller&force=true`,
      {
        apiVersion: 'infrastructure.keymaster.dev/v1beta1',
        kind: 'AWSCluster',
        metadata: { name: 's' },
        status: { accountID: '123456789012' },
      },
      APPLY,
    );
    expect(managers(applied)).to.deep.equal(['controller/Apply/status', 'unknown/Update']);
  });

  it('removes a map-list item whose key the manager stops applying, defaulted fields and all', async () => {
    const policy = (resourceTags: { key: string; value: string }[]) => ({
      apiVersion: 'infrastructure.keymaster.dev/v1beta1',
      kind: 'AWSTagPolicy',
      metadata: { name: 'default' },
      spec: { resourceTags },
    });
    await send('PATCH', `${POLICIES}/default?fieldManager=alice`, policy([{ key: 'a', value: '1' }]), APPLY);
    await send('PATCH', `${POLICIES}/default?fieldManager=bob`, policy([{ key: 'b', value: '2' }]), APPLY);
    const emptied = await send('PATCH', `${POLICIES}/default?fieldManager=alice`, policy([]), APPLY);
    expect(emptied.status).to.equal(200);
    expect(emptied.body.spec!.resourceTags!.map(({ key }) => key)).to.deep.equal(['b']);
  });

  it('gives an update that sets an empty map list the list (a status write of no conditions has its entry)', async () => {
    const identities = '/apis/infrastructure.keymaster.dev/v1beta1/awsclusterstaticidentities';
    await send('POST', `${identities}?fieldManager=writer`, {
      apiVersion: 'infrastructure.keymaster.dev/v1beta1',
      kind: 'AWSClusterStaticIdentity',
      metadata: { name: 'empty-conditions' },
      spec: { secretRef: 'keys' },
    });
    const written = await send(
      'PATCH',
      `${identities}/empty-conditions/status?fieldManager=writer`,
      { status: { conditions: [] } },
      MERGE,
    );
    expect(written.status).to.equal(200);
    expect(managers(written)).to.deep.equal(['writer/Update', 'writer/Update/status']);
  });

  it('gives nobody an empty map list: a manager that stops applying it leaves it', async () => {
    const policy = (spec: Record<string, unknown>) => ({
      apiVersion: 'infrastructure.keymaster.dev/v1beta1',
      kind: 'AWSTagPolicy',
      metadata: { name: 'default' },
      spec,
    });
    await send('DELETE', `${POLICIES}/default`);
    await send('PATCH', `${POLICIES}/default?fieldManager=carol`, policy({ resourceTags: [] }), APPLY);
    const dropped = await send('PATCH', `${POLICIES}/default?fieldManager=carol`, policy({}), APPLY);
    expect(dropped.status).to.equal(200);
    expect(dropped.body.spec!.resourceTags).to.deep.equal([]);
  });
});
