import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { call, startTestCluster, type TestCluster } from '../helpers/emulator.js';

const V1 = '/apis/admissionregistration.k8s.io/v1';
const POLICIES = `${V1}/validatingadmissionpolicies`;
const BINDINGS = `${V1}/validatingadmissionpolicybindings`;
const CM = '/api/v1/namespaces/default/configmaps';

type Fields = Record<string, unknown>;
interface Status {
  code: number;
  reason: string;
  message: string;
  details: { name?: string; kind?: string; causes?: { message: string; field?: string }[] };
}

const configMap = (name: string, data: Fields = {}, labels?: Fields, ownerReferences?: Fields[]) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...(labels ? { labels } : {}), ...(ownerReferences ? { ownerReferences } : {}) },
  data,
});

const rules = (operations: string[], resources = ['configmaps'], apiGroups = ['']) => [
  { apiGroups, apiVersions: ['v1'], operations, resources },
];

describe('ValidatingAdmissionPolicy (kube-emulator)', function () {
  this.timeout(30_000);
  let cluster: TestCluster;

  before(async () => {
    cluster = await startTestCluster();
  });
  after(() => cluster.stop());
  afterEach(async () => {
    await call(cluster.emulator, 'DELETE', BINDINGS);
    await call(cluster.emulator, 'DELETE', POLICIES);
    await call(cluster.emulator, 'DELETE', CM);
  });

  const send = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    call(cluster.emulator, method, path, body, headers);

  /** A policy and a binding of it, both named `name`; the policy spec gets `matchConstraints` from `operations`. */
  const enforce = async (name: string, spec: Fields, actions = ['Deny'], operations = ['CREATE', 'UPDATE']) => {
    const policy = await send('POST', POLICIES, {
      metadata: { name },
      spec: { matchConstraints: { resourceRules: rules(operations) }, ...spec },
    });
    expect(policy.status, JSON.stringify(policy.body)).to.equal(201);
    const binding = await send('POST', BINDINGS, {
      metadata: { name },
      spec: { policyName: name, validationActions: actions },
    });
    expect(binding.status, JSON.stringify(binding.body)).to.equal(201);
  };

  it("stores policies and bindings with kube-apiserver's defaults, an empty status and generation 1", async () => {
    await enforce('defaults', { validations: [{ expression: 'true' }] });
    const { body } = await send('GET', `${POLICIES}/defaults`);
    const policy = body as { metadata: { generation: number }; spec: Fields; status: Fields };
    expect(policy.metadata.generation).to.equal(1);
    expect(policy.status).to.deep.equal({});
    expect(policy.spec).to.deep.include({ failurePolicy: 'Fail' });
    expect(policy.spec.matchConstraints).to.deep.equal({
      resourceRules: [{ ...rules(['CREATE', 'UPDATE'])[0], scope: '*' }],
      namespaceSelector: {},
      objectSelector: {},
      matchPolicy: 'Equivalent',
    });
    const changed = await send(
      'PATCH',
      `${POLICIES}/defaults`,
      { spec: { failurePolicy: 'Ignore' } },
      {
        'Content-Type': 'application/merge-patch+json',
      },
    );
    expect((changed.body as { metadata: { generation: number } }).metadata.generation).to.equal(2);
  });

  it("refuses what kube-apiserver's validation refuses, expressions that do not compile in cel-go's words", async () => {
    const refused = await send('POST', POLICIES, {
      metadata: { name: 'broken' },
      spec: {
        matchConstraints: { resourceRules: rules(['CREATE']) },
        validations: [{ expression: 'self.spec.x > 0' }, { expression: 'object.metadata.name' }],
        variables: [{ name: 'nick', expression: 'request.userInfo.nickname' }],
      },
    });
    expect(refused.status).to.equal(422);
    const messages = (refused.body as Status).details.causes!.map((cause) => `${cause.field}: ${cause.message}`);
    expect(messages).to.have.members([
      `spec.validations[0].expression: Invalid value: "self.spec.x > 0": compilation failed: ERROR: <input>:1:1: undeclared reference to 'self' (in container '')\n | self.spec.x > 0\n | ^`,
      'spec.validations[1].expression: Invalid value: "object.metadata.name": must evaluate to bool but got dyn',
      `spec.variables[0].expression: Invalid value: "request.userInfo.nickname": compilation failed: ERROR: <input>:1:17: undefined field 'nickname'\n | request.userInfo.nickname\n | ................^`,
    ]);
    const binding = await send('POST', BINDINGS, {
      metadata: { name: 'b' },
      spec: { validationActions: ['Deny', 'Warn'] },
    });
    expect((binding.body as Status).message).to.equal(
      'ValidatingAdmissionPolicyBinding.admissionregistration.k8s.io "b" is invalid: [spec.policyName: Required value, spec.validationActions: Invalid value: ["Deny","Warn"]: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)]',
    );
  });

  it('Deny refuses with the first failed validation: its messageExpression, message or expression, and reason', async () => {
    await enforce('tiers', {
      validations: [
        {
          expression: 'object.data.tier in ["gold", "silver"]',
          messageExpression: '"tier " + object.data.tier + " is not offered to " + request.userInfo.username',
          reason: 'Forbidden',
        },
        { expression: 'object.data.tier == oldObject.data.tier', message: 'tiers do not change' },
      ],
    });
    const bronze = await send('POST', CM, configMap('bronze', { tier: 'bronze' }));
    expect(bronze.status).to.equal(403);
    const message =
      "ValidatingAdmissionPolicy 'tiers' with binding 'tiers' denied request: tier bronze is not offered to admin";
    expect(bronze.body).to.deep.include({
      reason: 'Forbidden',
      code: 403,
      message: `configmaps "bronze" is forbidden: ${message}`,
      details: { name: 'bronze', kind: 'configmaps', causes: [{ message }] },
    });
    // A create has no oldObject: the second validation errs, and the error refuses (Invalid).
    const gold = await send('POST', CM, configMap('gold', { tier: 'gold' }));
    expect(gold.status).to.equal(422);
    expect((gold.body as Status).message).to.equal(
      `configmaps "gold" is forbidden: ValidatingAdmissionPolicy 'tiers' with binding 'tiers' denied request: expression 'object.data.tier == oldObject.data.tier' resulted in error: no such key: data`,
    );
    expect((await send('GET', `${CM}/gold`)).status, 'nothing stored').to.equal(404);
  });

  it('Warn admits with a Warning header per failed validation; Audit records nothing', async () => {
    await enforce('small', { validations: [{ expression: 'size(object.data) < 2' }] }, ['Warn']);
    await send('POST', BINDINGS, {
      metadata: { name: 'audit' },
      spec: { policyName: 'small', validationActions: ['Audit'] },
    });
    const created = await send('POST', CM, configMap('big', { a: '1', b: '2' }));
    expect(created.status).to.equal(201);
    expect(created.headers.get('warning')).to.equal(
      `299 - "Validation failed for ValidatingAdmissionPolicy 'small' with binding 'small': failed expression: size(object.data) < 2"`,
    );
  });

  it('evaluates variables lazily (an erring one fails only what reads it), matchConditions first, with namespaceObject', async () => {
    await enforce('composed', {
      matchConditions: [{ name: 'not-exempt', expression: '!has(object.metadata.labels)' }],
      variables: [
        { name: 'tier', expression: 'has(object.data) && has(object.data.tier) ? object.data.tier : "none"' },
        { name: 'broken', expression: 'object.data.missing == "x"' },
      ],
      validations: [
        { expression: 'variables.tier != "none"', messageExpression: '"a tier in " + namespaceObject.metadata.name' },
        { expression: '!variables.broken' },
      ],
    });
    expect(((await send('POST', CM, configMap('untiered'))).body as Status).message).to.equal(
      `configmaps "untiered" is forbidden: ValidatingAdmissionPolicy 'composed' with binding 'composed' denied request: a tier in default`,
    );
    expect(((await send('POST', CM, configMap('tiered', { tier: 'a' }))).body as Status).message).to.equal(
      `configmaps "tiered" is forbidden: ValidatingAdmissionPolicy 'composed' with binding 'composed' denied request: expression '!variables.broken' resulted in error: composited variable "broken" fails to evaluate: no such key: missing`,
    );
    expect((await send('POST', CM, configMap('exempt', {}, { any: 'x' }))).status).to.equal(201);
  });

  it('failurePolicy Ignore admits what an erring validation would refuse; a policy with paramKind refuses as misconfigured', async () => {
    await enforce('ignored', { failurePolicy: 'Ignore', validations: [{ expression: 'object.data.missing == "x"' }] });
    expect((await send('POST', CM, configMap('passes'))).status).to.equal(201);
    await enforce('params', {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      validations: [{ expression: 'params.data.x == "y"' }],
    });
    const refused = await send('POST', CM, configMap('unparameterized'));
    expect((refused.body as Status).message).to.equal(
      `configmaps "unparameterized" is forbidden: ValidatingAdmissionPolicy 'params' denied request: failed to configure policy: paramKind is not supported by the kube-emulator (docs/emulators/kube-emulator.md)`,
    );
  });

  it('enforces a writers-only policy of the shape Keymaster ships, whoever the request acts as', async () => {
    await enforce(
      'writers',
      {
        variables: [
          { name: 'writers', expression: "['system:serviceaccount:keymaster-system:keymaster']" },
          { name: 'groups', expression: "['system:masters']" },
        ],
        validations: [
          {
            expression:
              'request.userInfo.username in variables.writers || (has(request.userInfo.groups) && request.userInfo.groups.exists(group, group in variables.groups))',
            messageExpression: "request.userInfo.username + ' may not ' + request.operation.lowerAscii() + ' them'",
            reason: 'Forbidden',
          },
        ],
      },
      ['Deny'],
      ['CREATE', 'UPDATE', 'DELETE'],
    );
    const as = (user: string) => ({ 'Impersonate-User': user });
    expect((await send('POST', CM, configMap('by-admin'))).status, 'system:masters').to.equal(201);
    const controller = await send(
      'POST',
      CM,
      configMap('by-controller'),
      as('system:serviceaccount:keymaster-system:keymaster'),
    );
    expect(controller.status).to.equal(201);
    const tenant = await send('DELETE', `${CM}/by-controller`, undefined, as('tenant-a'));
    expect((tenant.body as Status).message).to.equal(
      `configmaps "by-controller" is forbidden: ValidatingAdmissionPolicy 'writers' with binding 'writers' denied request: tenant-a may not delete them`,
    );
  });

  it('a binding to a missing policy does nothing until the policy exists', async () => {
    await send('POST', BINDINGS, {
      metadata: { name: 'early' },
      spec: { policyName: 'later', validationActions: ['Deny'] },
    });
    expect((await send('POST', CM, configMap('first'))).status).to.equal(201);
    await send('POST', POLICIES, {
      metadata: { name: 'later' },
      spec: { matchConstraints: { resourceRules: rules(['CREATE']) }, validations: [{ expression: 'false' }] },
    });
    expect((await send('POST', CM, configMap('second'))).status).to.equal(422);
  });

  it('matches subresources by their rules, and Namespaces by their stored labels on /status and /finalize', async () => {
    await send('POST', '/api/v1/namespaces', { metadata: { name: 'guarded', labels: { tenancy: 'a' } } });
    const spec = {
      matchConstraints: {
        resourceRules: rules(['UPDATE'], ['namespaces/status', 'namespaces/finalize']),
        namespaceSelector: { matchLabels: { tenancy: 'a' } },
      },
      validations: [
        {
          expression: 'object.metadata.labels.tenancy == oldObject.metadata.labels.tenancy',
          messageExpression: '"no tenancy change through " + request.subResource',
        },
      ],
    };
    expect((await send('POST', POLICIES, { metadata: { name: 'tenancy' }, spec })).status).to.equal(201);
    await send('POST', BINDINGS, {
      metadata: { name: 'tenancy' },
      spec: { policyName: 'tenancy', validationActions: ['Deny'] },
    });
    const relabel = (tenancy: string) => ({
      metadata: { name: 'guarded', labels: { tenancy } },
      status: { phase: 'Active' },
    });
    for (const subresource of ['status', 'finalize']) {
      const refused = await send('PUT', `/api/v1/namespaces/guarded/${subresource}`, relabel('b'));
      expect((refused.body as Status).message).to.equal(
        `namespaces "guarded" is forbidden: ValidatingAdmissionPolicy 'tenancy' with binding 'tenancy' denied request: no tenancy change through ${subresource}`,
      );
    }
    const main = await send(
      'PATCH',
      '/api/v1/namespaces/guarded',
      { metadata: { labels: { tenancy: 'b' } } },
      {
        'Content-Type': 'application/merge-patch+json',
      },
    );
    expect(main.status, 'the rules name the subresources alone').to.equal(200);
    // Stored labels no longer match the namespaceSelector: the policy is not asked.
    expect((await send('PUT', '/api/v1/namespaces/guarded/status', relabel('c'))).status).to.equal(200);
    await send('DELETE', '/api/v1/namespaces/guarded');
  });

  it("admits the garbage collector's deletes as its service account, and collects once the policy goes", async () => {
    await enforce(
      'protect',
      {
        validations: [
          {
            expression:
              '!(oldObject.metadata.name == "protected" && request.userInfo.username.startsWith("system:serviceaccount:kube-system:"))',
          },
        ],
      },
      ['Deny'],
      ['DELETE'],
    );
    const owner = await send('POST', CM, configMap('owner'));
    const uid = (owner.body as { metadata: { uid: string } }).metadata.uid;
    const reference = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid }];
    await send('POST', CM, configMap('protected', {}, undefined, reference));
    await send('POST', CM, configMap('free', {}, undefined, reference));
    await send('DELETE', `${CM}/owner`);
    const gone = async (name: string): Promise<boolean> => {
      for (let tries = 0; tries < 100; tries++) {
        if ((await send('GET', `${CM}/${name}`)).status === 404) return true;
        await new Promise((resolve) => setImmediate(resolve));
      }
      return false;
    };
    expect(await gone('free')).to.equal(true);
    expect((await send('GET', `${CM}/protected`)).status, 'the collector was refused').to.equal(200);
    await send('DELETE', `${BINDINGS}/protect`);
    expect(await gone('protected'), 'collected once the policy no longer applies').to.equal(true);
  });

  it("admits the namespace controller's deletecollection, reports a refusal in the namespace's conditions", async () => {
    await send('POST', '/api/v1/namespaces', { metadata: { name: 'doomed' } });
    const path = '/api/v1/namespaces/doomed/configmaps';
    await send('POST', path, configMap('kept'));
    await send('POST', path, configMap('later'));
    await enforce(
      'keep',
      {
        validations: [
          {
            expression: 'oldObject.metadata.name != "kept"',
            messageExpression: 'request.userInfo.username + " named: " + string(has(request.name))',
          },
        ],
      },
      ['Deny'],
      ['DELETE'],
    );
    await send('DELETE', '/api/v1/namespaces/doomed');
    let conditions: { type: string; status: string; message: string }[] = [];
    for (
      let tries = 0;
      tries < 100 &&
      !conditions.some(({ status, type }) => type === 'NamespaceDeletionContentFailure' && status === 'True');
      tries++
    ) {
      await new Promise((resolve) => setImmediate(resolve));
      const namespace = await send('GET', '/api/v1/namespaces/doomed');
      conditions = (namespace.body as { status: { conditions?: typeof conditions } }).status.conditions ?? [];
    }
    expect(conditions.find(({ type }) => type === 'NamespaceDeletionContentFailure')?.message).to.equal(
      `Failed to delete all resource types, 1 remaining: configmaps "Unknown" is forbidden: ValidatingAdmissionPolicy 'keep' with binding 'keep' denied request: system:serviceaccount:kube-system:namespace-controller named: false`,
    );
    expect((await send('GET', `${path}/later`)).status, 'deletecollection stops at the first refusal').to.equal(200);
    await send('DELETE', `${BINDINGS}/keep`);
    for (let tries = 0; tries < 100 && (await send('GET', '/api/v1/namespaces/doomed')).status !== 404; tries++) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect((await send('GET', '/api/v1/namespaces/doomed')).status, 'emptied once the policy goes').to.equal(404);
  });
});

describe('ValidatingAdmissionPolicy: the authorizer of expressions asks RBAC', function () {
  this.timeout(30_000);
  let folder: string;
  let cluster: TestCluster;
  const as = (token: string, method: string, path: string, body?: unknown) =>
    call(cluster.emulator, method, path, body, { Authorization: `Bearer ${token}` });

  before(async () => {
    folder = mkdtempSync(join(tmpdir(), 'kube-emulator-policy-authorizer-'));
    writeFileSync(join(folder, 'tokens.csv'), 'root-token,root,0,system:masters\neve-token,eve,1\n');
    cluster = await startTestCluster({ tokenAuthFile: join(folder, 'tokens.csv'), authorization: 'RBAC' });
    const rbac = '/apis/rbac.authorization.k8s.io/v1/namespaces/default';
    await as('root-token', 'POST', `${rbac}/roles`, {
      metadata: { name: 'cm-writer' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create'] }],
    });
    await as('root-token', 'POST', `${rbac}/rolebindings`, {
      metadata: { name: 'eve' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm-writer' },
      subjects: [{ kind: 'User', name: 'eve' }],
    });
    await as('root-token', 'POST', POLICIES, {
      metadata: { name: 'readers-only' },
      spec: {
        matchConstraints: { resourceRules: rules(['CREATE']) },
        validations: [
          {
            expression: 'authorizer.requestResource.check("create").allowed()',
            message: 'the request itself is allowed',
          },
          {
            expression: `authorizer.group("").resource("configmaps").namespace("default").check("create").reason() == 'RBAC: allowed by RoleBinding "eve/default" of Role "cm-writer" to User "eve"' || request.userInfo.username != "eve"`,
            message: "RBAC's reason",
          },
          {
            expression: 'authorizer.group("").resource("secrets").namespace(request.namespace).check("get").allowed()',
            message: 'only those who may read secrets write configmaps here',
          },
        ],
      },
    });
    await as('root-token', 'POST', BINDINGS, {
      metadata: { name: 'readers-only' },
      spec: { policyName: 'readers-only', validationActions: ['Deny'] },
    });
  });
  after(async () => {
    await cluster.stop();
    rmSync(folder, { recursive: true, force: true });
  });

  it('refuses the requester the check says no to, admits the one it says yes to', async () => {
    const refused = await as('eve-token', 'POST', CM, configMap('by-eve'));
    expect((refused.body as Status).message).to.equal(
      `configmaps "by-eve" is forbidden: ValidatingAdmissionPolicy 'readers-only' with binding 'readers-only' denied request: only those who may read secrets write configmaps here`,
    );
    expect((await as('root-token', 'POST', CM, configMap('by-root'))).status).to.equal(201);
  });
});
