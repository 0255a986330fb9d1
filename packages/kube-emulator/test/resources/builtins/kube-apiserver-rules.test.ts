import { expect } from 'chai';
import { call, startTestCluster, type TestCluster } from '../../helpers/emulator.js';

const CM = '/api/v1/namespaces/default/configmaps';
const MERGE = { 'Content-Type': 'application/merge-patch+json' };

interface Answer {
  status: number;
  body: Record<string, unknown> & {
    message?: string;
    metadata?: Record<string, unknown>;
    details?: { causes?: { field?: string; message: string }[] };
  };
}

/**
 * Built-in kinds' defaults, validation and namespace lifecycle as kube-apiserver 1.37 has them:
 * each expectation is the real server's answer to the same request in the fidelity corpus.
 */
describe('built-in kinds as kube-apiserver defaults and validates them', function () {
  this.timeout(20_000);
  let cluster: TestCluster;
  const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    call(cluster.emulator, method, path, body, headers) as Promise<Answer>;

  before(async () => {
    cluster = await startTestCluster();
  });
  after(() => cluster.stop());

  it('checks ConfigMap keys, immutability and base64 data', async () => {
    const key = await send('POST', CM, { metadata: { name: 'k' }, data: { '..': 'x' } });
    expect(key.body.message).to.equal(`ConfigMap "k" is invalid: data[..]: Invalid value: "..": must not be '..'`);
    const duplicate = await send('POST', CM, { metadata: { name: 'd' }, data: { a: 'x' }, binaryData: { a: 'eA==' } });
    expect(duplicate.body.message).to.equal(
      'ConfigMap "d" is invalid: data[a]: Invalid value: "a": duplicate of key present in binaryData',
    );
    await send('POST', CM, { metadata: { name: 'frozen' }, data: { a: '1' }, immutable: true });
    const changed = await send('PATCH', `${CM}/frozen`, { data: { a: '2' } }, MERGE);
    expect(changed.body.message).to.equal(
      'ConfigMap "frozen" is invalid: data: Forbidden: field is immutable when `immutable` is set',
    );
    const secret = await send('POST', '/api/v1/namespaces/default/secrets', {
      metadata: { name: 's' },
      data: { key: 'not base64!' },
    });
    expect(secret).to.deep.include({ status: 400 });
    expect(secret.body.message).to.equal(
      'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 3',
    );
  });

  it('checks finalizer names and owner references in its own words', async () => {
    const finalizer = await send('POST', CM, { metadata: { name: 'f', finalizers: ['no-domain'] } });
    expect(finalizer.body.message).to.equal(
      'ConfigMap "f" is invalid: metadata.finalizers[0]: Invalid value: "no-domain": name is neither a standard finalizer name nor is it fully qualified',
    );
    const uid = await send('POST', CM, {
      metadata: { name: 'o', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: '' }] },
    });
    expect(uid.body.message).to.equal(
      'ConfigMap "o" is invalid: metadata.ownerReferences[0].uid: Required value: must not be empty',
    );
    const controllers = await send('POST', CM, {
      metadata: {
        name: 'c',
        ownerReferences: ['x', 'y'].map((name) => ({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          name,
          uid: name,
          controller: true,
        })),
      },
    });
    // The bad value as JSON (1.35 on): the references' fields in their declared order, unset ones left out.
    expect(controllers.body.message).to.equal(
      'ConfigMap "c" is invalid: metadata.ownerReferences: Invalid value: [{"apiVersion":"v1","kind":"ConfigMap","name":"x","uid":"x","controller":true},{"apiVersion":"v1","kind":"ConfigMap","name":"y","uid":"y","controller":true}]: Only one reference can have Controller set to true. Found "true" in references for ConfigMap/x and ConfigMap/y',
    );
    await send('POST', CM, { metadata: { name: 'closing', finalizers: ['example.com/hold'] } });
    await send('DELETE', `${CM}/closing`);
    const added = await send(
      'PATCH',
      `${CM}/closing`,
      { metadata: { finalizers: ['example.com/hold', 'example.com/more'] } },
      MERGE,
    );
    expect(added.body.message).to.equal(
      'ConfigMap "closing" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/more"}',
    );
    expect(added.body.details?.causes).to.have.length(1);
  });

  it('checks RBAC rules and bindings in its own words', async () => {
    const rules = await send('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', {
      metadata: { name: 'r' },
      rules: [
        { apiGroups: [''], resources: ['pods'] },
        { verbs: ['get'], nonResourceURLs: ['/x'] },
      ],
    });
    expect(rules.body.details?.causes?.map(({ field, message }) => `${field}: ${message}`)).to.deep.equal([
      'rules[0].verbs: Required value',
      'rules[1].nonResourceURLs: Invalid value: ["/x"]: namespaced rules cannot apply to non-resource URLs',
    ]);
    const bindings = '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings';
    const noRef = await send('POST', bindings, { metadata: { name: 'b' }, subjects: [] });
    expect(noRef.body.message).to.equal(
      'RoleBinding.rbac.authorization.k8s.io "b" is invalid: [roleRef.kind: Unsupported value: "": supported values: "Role", "ClusterRole", roleRef.name: Required value]',
    );
    await send('POST', bindings, {
      metadata: { name: 'fixed' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
    });
    const changed = await send('PATCH', `${bindings}/fixed`, { roleRef: { name: 'edit' } }, MERGE);
    expect(changed.body.message).to.equal(
      'RoleBinding.rbac.authorization.k8s.io "fixed" is invalid: roleRef: Invalid value: {"APIGroup":"rbac.authorization.k8s.io","Kind":"ClusterRole","Name":"edit"}: field is immutable',
    );
  });

  it('writes Events with the zero values of their Go types, and webhook configurations with their defaults', async () => {
    const event = await send('POST', '/api/v1/namespaces/default/events', {
      metadata: { name: 'e' },
      involvedObject: { kind: 'ConfigMap', name: 'x' },
      reason: 'Tested',
    });
    expect(event.body).to.deep.include({
      source: {},
      firstTimestamp: null,
      lastTimestamp: null,
      eventTime: null,
      reportingComponent: '',
      reportingInstance: '',
    });
    const v1 = await send('GET', '/apis/events.k8s.io/v1/namespaces/default/events/e');
    expect(v1.body).to.deep.include({ deprecatedSource: {}, deprecatedFirstTimestamp: null, eventTime: null });
    expect(v1.body).to.not.have.any.keys('reportingController', 'reportingInstance');
    const webhooks = await send('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', {
      metadata: { name: 'w' },
      webhooks: [
        {
          name: 'w.example.com',
          clientConfig: { url: 'https://x' },
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          rules: [{ operations: ['CREATE'] }],
        },
      ],
    });
    expect(webhooks.body.metadata).to.include({ generation: 1 });
    expect((webhooks.body.webhooks as object[])[0]).to.deep.include({
      failurePolicy: 'Fail',
      matchPolicy: 'Equivalent',
      namespaceSelector: {},
      objectSelector: {},
      timeoutSeconds: 10,
      rules: [{ operations: ['CREATE'], scope: '*' }],
    });
  });

  it('decodes YAML bodies as YAML 1.1 and refuses a metadata field of another type', async () => {
    const answer = await send('POST', CM, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y\n', {
      'Content-Type': 'application/yaml',
    });
    expect(answer).to.deep.include({ status: 400 });
    expect(answer.body.message).to.equal(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.name of type string',
    );
  });

  it('keeps namespaces as kube-apiserver does: protected ones, phase, a first delete that only marks', async () => {
    const refused = await send('DELETE', '/api/v1/namespaces/default');
    expect(refused).to.deep.include({ status: 403 });
    expect(refused.body.message).to.equal('namespaces "default" is forbidden: this namespace may not be deleted');
    const phase = await send('PATCH', '/api/v1/namespaces/default/status', { status: { phase: 'Terminating' } }, MERGE);
    expect(phase.body.message).to.equal(
      'Namespace "default" is invalid: status.Phase: Invalid value: "Terminating": may only be \'Active\' if `deletionTimestamp` is empty',
    );
    await send('POST', '/api/v1/namespaces', { metadata: { name: 'finalized' } });
    await send('PUT', '/api/v1/namespaces/finalized/finalize', {
      metadata: { name: 'finalized' },
      spec: { finalizers: [] },
    });
    const marked = await send('DELETE', '/api/v1/namespaces/finalized');
    expect(marked.body.metadata).to.include.keys('deletionTimestamp');
    expect(marked.body.metadata).to.not.have.any.keys('deletionGracePeriodSeconds', 'finalizers');
    expect(marked.body.status).to.deep.equal({ phase: 'Terminating' });
    // Nothing empties a namespace that is already finalized: it stays Terminating until deleted again.
    expect((await send('GET', '/api/v1/namespaces/finalized')).status).to.equal(200);
    await send('DELETE', '/api/v1/namespaces/finalized');
    expect((await send('GET', '/api/v1/namespaces/finalized')).status).to.equal(404);
  });

  it("reports a terminating namespace's progress in the namespace controller's conditions", async () => {
    await send('POST', '/api/v1/namespaces', { metadata: { name: 'draining' } });
    await send('POST', '/api/v1/namespaces/draining/configmaps', {
      metadata: { name: 'held', finalizers: ['example.com/hold'] },
    });
    await send('DELETE', '/api/v1/namespaces/draining');
    await new Promise((resolve) => setImmediate(resolve));
    const draining = await send('GET', '/api/v1/namespaces/draining');
    const conditions = (draining.body.status as { conditions: Record<string, string>[] }).conditions;
    expect(conditions.map(({ type, status, reason }) => `${type} ${status} ${reason}`)).to.deep.equal([
      'NamespaceDeletionDiscoveryFailure False ResourcesDiscovered',
      'NamespaceDeletionGroupVersionParsingFailure False ParsedGroupVersions',
      'NamespaceDeletionContentFailure False ContentDeleted',
      'NamespaceContentRemaining True SomeResourcesRemain',
      'NamespaceFinalizersRemaining True SomeFinalizersRemain',
    ]);
    expect(conditions[3]!.message).to.equal('Some resources are remaining: configmaps. has 1 resource instances');
    expect(conditions[4]!.message).to.equal(
      'Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances',
    );
    await send('PATCH', '/api/v1/namespaces/draining/configmaps/held', { metadata: { finalizers: null } }, MERGE);
    await new Promise((resolve) => setImmediate(resolve));
    expect((await send('GET', '/api/v1/namespaces/draining')).status).to.equal(404);
  });

  it("tracks generateName as a field, and drops a manager's fields that a controller removed", async () => {
    const generated = await send('POST', CM, { metadata: { generateName: 'gen-' } });
    expect(generated.body.metadata?.managedFields).to.have.length(1);
    const owner = await send('POST', CM, { metadata: { name: 'owner' } });
    await send('POST', CM, {
      metadata: {
        name: 'child',
        ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.body.metadata!.uid }],
      },
    });
    await send('DELETE', `${CM}/owner`, { propagationPolicy: 'Orphan' });
    const child = await send('GET', `${CM}/child`);
    expect(child.body.metadata).to.not.have.any.keys('ownerReferences', 'managedFields');
  });
});
