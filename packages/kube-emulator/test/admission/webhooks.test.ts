import { expect } from 'chai';
import { call, startTestCluster, type TestCluster } from '../helpers/emulator.js';
import { WebhookServer, type Answer, type Review } from './webhook-server.js';

const CM = '/api/v1/namespaces/default/configmaps';
const configMap = (name: string, labels: Record<string, string> = {}, data: Record<string, string> = { a: '1' }) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, labels },
  data,
});

interface Hook {
  path: string;
  rules?: unknown[];
  failurePolicy?: 'Fail' | 'Ignore';
  sideEffects?: string;
  timeoutSeconds?: number;
  namespaceSelector?: unknown;
  objectSelector?: unknown;
  matchPolicy?: string;
  reinvocationPolicy?: string;
  matchConditions?: { name: string; expression: string }[];
  url?: string;
  caBundle?: string | null;
}

const CONFIGMAP_RULES = [
  { operations: ['CREATE', 'UPDATE', 'DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] },
];

describe('admission webhooks (kube-emulator)', function () {
  let cluster: TestCluster;
  let webhooks: WebhookServer;

  before(async () => {
    cluster = await startTestCluster();
    webhooks = new WebhookServer();
    await webhooks.start();
  });
  after(async () => {
    await webhooks.stop();
    await cluster.stop();
  });
  afterEach(async () => {
    for (const kind of ['validatingwebhookconfigurations', 'mutatingwebhookconfigurations']) {
      await call(cluster.emulator, 'DELETE', `/apis/admissionregistration.k8s.io/v1/${kind}`);
    }
    await call(cluster.emulator, 'DELETE', CM);
    webhooks.reviews.length = 0;
  });

  const register = async (kind: 'Validating' | 'Mutating', name: string, hooks: Hook[]) => {
    const plural = `${kind.toLowerCase()}webhookconfigurations`;
    const created = await call(cluster.emulator, 'POST', `/apis/admissionregistration.k8s.io/v1/${plural}`, {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: `${kind}WebhookConfiguration`,
      metadata: { name },
      webhooks: hooks.map((hook, index) => ({
        name: `${name}-${index}.example.com`,
        admissionReviewVersions: ['v1'],
        sideEffects: hook.sideEffects ?? 'None',
        rules: hook.rules ?? CONFIGMAP_RULES,
        clientConfig: {
          url: `${hook.url ?? webhooks.url}${hook.path}`,
          ...(hook.caBundle === null ? {} : { caBundle: hook.caBundle ?? webhooks.caBundle }),
        },
        ...(hook.failurePolicy ? { failurePolicy: hook.failurePolicy } : {}),
        ...(hook.timeoutSeconds ? { timeoutSeconds: hook.timeoutSeconds } : {}),
        ...(hook.namespaceSelector ? { namespaceSelector: hook.namespaceSelector } : {}),
        ...(hook.objectSelector ? { objectSelector: hook.objectSelector } : {}),
        ...(hook.matchPolicy ? { matchPolicy: hook.matchPolicy } : {}),
        ...(hook.reinvocationPolicy ? { reinvocationPolicy: hook.reinvocationPolicy } : {}),
        ...(hook.matchConditions ? { matchConditions: hook.matchConditions } : {}),
      })),
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
  };
  const deny = (message: string, code?: number): Answer => ({
    allowed: false,
    status: { message, ...(code ? { code } : {}) },
  });

  it('sends an AdmissionReview v1 with the request, the user and the options, and refuses as the webhook says', async () => {
    webhooks.on('/deny', () => ({ ...deny('configmaps named bad are refused', 403), warnings: ['careful'] }));
    await register('Validating', 'deny', [{ path: '/deny' }]);
    const refused = await call(cluster.emulator, 'POST', `${CM}?fieldManager=tester`, configMap('bad'));
    expect(refused.status).to.equal(403);
    expect(refused.body).to.deep.include({
      status: 'Failure',
      message: 'admission webhook "deny-0.example.com" denied the request: configmaps named bad are refused',
      code: 403,
    });
    expect(refused.headers.get('warning')).to.equal('299 - "careful"');
    const [review] = webhooks.sent('/deny') as [Review];
    expect(review.request).to.deep.include({
      operation: 'CREATE',
      name: 'bad',
      namespace: 'default',
      kind: { group: '', version: 'v1', kind: 'ConfigMap' },
      resource: { group: '', version: 'v1', resource: 'configmaps' },
      dryRun: false,
      oldObject: null,
      options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', fieldManager: 'tester' },
    });
    expect(review.request.userInfo.username).to.equal('admin');
    expect(review.request.object?.metadata.name).to.equal('bad');
    const stored = await call(cluster.emulator, 'GET', `${CM}/bad`);
    expect(stored.status, 'nothing stored').to.equal(404);
  });

  it('a denial without a code is a 400, without a message names the reason or says so', async () => {
    webhooks.on('/plain', () => ({ allowed: false }));
    await register('Validating', 'plain', [{ path: '/plain' }]);
    const refused = await call(cluster.emulator, 'POST', CM, configMap('x'));
    expect(refused.status).to.equal(400);
    expect((refused.body as { message: string }).message).to.equal(
      'admission webhook "plain-0.example.com" denied the request without explanation',
    );
  });

  it('applies mutating webhooks in order (JSON patches), then validating ones see the patched object', async () => {
    webhooks.on('/label', () => ({
      allowed: true,
      patch: [{ op: 'add', path: '/metadata/labels/team', value: 'a' }],
    }));
    webhooks.on('/data', (review) => ({
      allowed: true,
      patch: [{ op: 'add', path: '/data/team', value: review.request.object?.metadata.labels?.['team'] ?? 'none' }],
    }));
    webhooks.on('/check', () => ({ allowed: true }));
    await register('Mutating', 'a-label', [{ path: '/label' }]);
    await register('Mutating', 'b-data', [{ path: '/data' }]);
    await register('Validating', 'check', [{ path: '/check' }]);
    const created = await call(cluster.emulator, 'POST', CM, configMap('m'));
    expect(created.status).to.equal(201);
    expect(created.body).to.deep.include({ data: { a: '1', team: 'a' } });
    expect((created.body as { metadata: { labels: unknown } }).metadata.labels).to.deep.equal({ team: 'a' });
    const [validated] = webhooks.sent('/check') as [Review];
    expect(validated.request.object?.metadata.labels).to.deep.equal({ team: 'a' });
  });

  it('calls a mutating webhook again when a later one changed the object (reinvocationPolicy IfNeeded)', async () => {
    webhooks.on('/first', () => ({ allowed: true }));
    webhooks.on('/second', () => ({ allowed: true, patch: [{ op: 'add', path: '/data/b', value: '2' }] }));
    await register('Mutating', 'a-first', [{ path: '/first', reinvocationPolicy: 'IfNeeded' }]);
    await register('Mutating', 'b-second', [{ path: '/second' }]);
    await call(cluster.emulator, 'POST', CM, configMap('r'));
    expect(webhooks.sent('/first')).to.have.length(2);
    expect(webhooks.sent('/first')[1]!.request.object?.['data' as keyof object]).to.deep.equal({ a: '1', b: '2' });
  });

  it('sends updates and patches with the old object, deletes with the old object only', async () => {
    webhooks.on('/all', () => ({ allowed: true }));
    await register('Validating', 'all', [{ path: '/all' }]);
    await call(cluster.emulator, 'POST', CM, configMap('u'));
    const patched = await call(
      cluster.emulator,
      'PATCH',
      `${CM}/u`,
      { data: { a: '2' } },
      {
        'Content-Type': 'application/merge-patch+json',
      },
    );
    expect(patched.status).to.equal(200);
    const deleted = await call(cluster.emulator, 'DELETE', `${CM}/u`);
    expect(deleted.status).to.equal(200);
    const [create, update, remove] = webhooks.sent('/all') as [Review, Review, Review];
    expect(create.request.operation).to.equal('CREATE');
    expect(update.request).to.deep.include({ operation: 'UPDATE' });
    expect(update.request.options).to.deep.include({ kind: 'PatchOptions' });
    expect(update.request.oldObject?.['data' as keyof object]).to.deep.equal({ a: '1' });
    expect(update.request.object?.['data' as keyof object]).to.deep.equal({ a: '2' });
    expect(remove.request).to.deep.include({ operation: 'DELETE', object: null, name: 'u' });
    expect(remove.request.options).to.deep.include({ kind: 'DeleteOptions' });
    expect(remove.request.oldObject?.metadata.name).to.equal('u');
  });

  it('refuses a delete a webhook denies, and keeps the object', async () => {
    await call(cluster.emulator, 'POST', CM, configMap('kept'));
    webhooks.on('/nodelete', (review) =>
      review.request.operation === 'DELETE' ? deny('in use by tenant-a/prod', 409) : { allowed: true },
    );
    await register('Validating', 'nodelete', [{ path: '/nodelete' }]);
    const refused = await call(cluster.emulator, 'DELETE', `${CM}/kept`);
    expect(refused.status).to.equal(409);
    expect((refused.body as { message: string }).message).to.match(/denied the request: in use by tenant-a\/prod$/);
    expect((await call(cluster.emulator, 'GET', `${CM}/kept`)).status).to.equal(200);
  });

  it('failurePolicy: Fail refuses the write when the webhook cannot be reached, Ignore lets it through', async () => {
    await register('Validating', 'down', [{ path: '/x', url: 'https://127.0.0.1:1', failurePolicy: 'Fail' }]);
    const refused = await call(cluster.emulator, 'POST', CM, configMap('f'));
    expect(refused.status).to.equal(500);
    expect(refused.body).to.deep.include({
      reason: 'InternalError',
      message:
        'Internal error occurred: failed calling webhook "down-0.example.com": failed to call webhook: Post ' +
        '"https://127.0.0.1:1/x?timeout=10s": dial tcp 127.0.0.1:1: connect: connection refused',
    });
    await call(
      cluster.emulator,
      'DELETE',
      '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/down',
    );
    await register('Validating', 'down', [{ path: '/x', url: 'https://127.0.0.1:1', failurePolicy: 'Ignore' }]);
    expect((await call(cluster.emulator, 'POST', CM, configMap('f'))).status).to.equal(201);
  });

  it('trusts the webhook only through its caBundle', async () => {
    await register('Validating', 'untrusted', [{ path: '/x', caBundle: null }]);
    const refused = await call(cluster.emulator, 'POST', CM, configMap('t'));
    expect((refused.body as { message: string }).message).to.match(
      /failed to call webhook: Post ".*": tls: failed to verify certificate: x509: certificate signed by unknown authority$/,
    );
  });

  it('gives up after timeoutSeconds', async () => {
    webhooks.on('/slow', () => ({ allowed: true, delayMs: 3000 }));
    await register('Validating', 'slow', [{ path: '/slow', timeoutSeconds: 1 }]);
    const refused = await call(cluster.emulator, 'POST', CM, configMap('s'));
    expect((refused.body as { message: string }).message).to.equal(
      `Internal error occurred: failed calling webhook "slow-0.example.com": failed to call webhook: Post "${webhooks.url}/slow?timeout=1s": context deadline exceeded`,
    );
  });

  it('refuses an answer for another request', async () => {
    webhooks.on('/uid', () => ({ allowed: true, wrongUid: true }));
    await register('Validating', 'uid', [{ path: '/uid' }]);
    const refused = await call(cluster.emulator, 'POST', CM, configMap('w'));
    expect((refused.body as { message: string }).message).to.match(
      /received invalid webhook response: expected response\.uid=".+", got "another"$/,
    );
  });

  it('dry run: webhooks with side effects are refused, those without are told and nothing is stored', async () => {
    webhooks.on('/effects', () => ({ allowed: true }));
    await register('Validating', 'effects', [{ path: '/effects', sideEffects: 'Some' }]);
    const refused = await call(cluster.emulator, 'POST', `${CM}?dryRun=All`, configMap('d'));
    expect(refused.status).to.equal(400);
    expect((refused.body as { message: string }).message).to.equal(
      'admission webhook "effects-0.example.com" does not support dry run',
    );
    expect(webhooks.sent('/effects')).to.have.length(0);
    await call(
      cluster.emulator,
      'DELETE',
      '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/effects',
    );
    await register('Validating', 'effects', [{ path: '/effects', sideEffects: 'None' }]);
    expect((await call(cluster.emulator, 'POST', `${CM}?dryRun=All`, configMap('d'))).status).to.equal(201);
    expect(webhooks.sent('/effects')[0]!.request.dryRun).to.equal(true);
    expect((await call(cluster.emulator, 'GET', `${CM}/d`)).status).to.equal(404);
  });

  it('matches by namespaceSelector (a Namespace by its own labels) and objectSelector', async () => {
    webhooks.on('/ns', () => deny('labelled namespace'));
    webhooks.on('/obj', () => deny('labelled object'));
    await register('Validating', 'ns', [{ path: '/ns', namespaceSelector: { matchLabels: { guarded: 'yes' } } }]);
    await register('Validating', 'obj', [
      { path: '/obj', objectSelector: { matchExpressions: [{ key: 'guarded', operator: 'Exists' }] } },
    ]);
    expect((await call(cluster.emulator, 'POST', CM, configMap('free'))).status).to.equal(201);
    expect((await call(cluster.emulator, 'POST', CM, configMap('held', { guarded: 'x' }))).status).to.equal(400);
    await call(cluster.emulator, 'POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'guarded', labels: { guarded: 'yes' } },
    });
    const inGuarded = await call(cluster.emulator, 'POST', '/api/v1/namespaces/guarded/configmaps', configMap('c'));
    expect((inGuarded.body as { message: string }).message).to.match(/labelled namespace$/);

    webhooks.on('/namespaces', () => deny('no'));
    await register('Validating', 'namespaces', [
      {
        path: '/namespaces',
        rules: [
          { operations: ['UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['namespaces'], scope: 'Cluster' },
        ],
        namespaceSelector: { matchLabels: { guarded: 'yes' } },
      },
    ]);
    const relabel = await call(
      cluster.emulator,
      'PATCH',
      '/api/v1/namespaces/guarded',
      { metadata: { labels: { x: 'y' } } },
      {
        'Content-Type': 'application/merge-patch+json',
      },
    );
    expect(relabel.status).to.equal(400);
    const [review] = webhooks.sent('/namespaces') as [Review];
    expect(review.request).to.deep.include({ name: 'guarded', namespace: 'guarded' });
  });

  it('matches rules by operation, resource and subresource, scope and matchPolicy', async () => {
    webhooks.on('/status', () => deny('status'));
    await register('Validating', 'status', [
      {
        path: '/status',
        rules: [
          { operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/status'], scope: 'Namespaced' },
        ],
      },
    ]);
    // configmaps have no subresource: nothing matches.
    expect((await call(cluster.emulator, 'POST', CM, configMap('n'))).status).to.equal(201);
    webhooks.on('/exact', () => deny('exact'));
    await register('Validating', 'exact', [
      {
        path: '/exact',
        matchPolicy: 'Exact',
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v2'], resources: ['configmaps'] }],
      },
    ]);
    expect((await call(cluster.emulator, 'POST', CM, configMap('e'))).status, 'Exact: v1 is not v2').to.equal(201);
    await call(
      cluster.emulator,
      'DELETE',
      '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/exact',
    );
    await register('Validating', 'exact', [
      {
        path: '/exact',
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v2'], resources: ['configmaps'] }],
      },
    ]);
    expect((await call(cluster.emulator, 'POST', CM, configMap('q'))).status, 'Equivalent').to.equal(400);
    expect(
      (await call(cluster.emulator, 'PUT', `${CM}/n`, configMap('n', {}, { a: '3' }))).status,
      'UPDATE not in the rule',
    ).to.equal(200);
  });

  it("sends namespaces/status and /finalize to a rule that lists them, selected by the stored Namespace's labels", async () => {
    webhooks.on('/main', () => deny('main'));
    webhooks.on('/subresources', () => deny('subresources'));
    const namespaceRules = (resources: string[]) => [
      { operations: ['UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources },
    ];
    await register('Validating', 'main', [{ path: '/main', rules: namespaceRules(['namespaces']) }]);
    await register('Validating', 'subresources', [
      {
        path: '/subresources',
        rules: namespaceRules(['namespaces/status', 'namespaces/finalize']),
        namespaceSelector: { matchLabels: { tenancy: 'a' } },
      },
    ]);
    await call(cluster.emulator, 'POST', '/api/v1/namespaces', {
      metadata: { name: 'tenant', labels: { tenancy: 'a' } },
    });
    const body = { metadata: { name: 'tenant', labels: { tenancy: 'b' } }, status: { phase: 'Active' } };
    for (const subresource of ['status', 'finalize']) {
      const refused = await call(cluster.emulator, 'PUT', `/api/v1/namespaces/tenant/${subresource}`, body);
      expect((refused.body as { message: string }).message).to.equal(
        'admission webhook "subresources-0.example.com" denied the request: subresources',
      );
    }
    const [review] = webhooks.sent('/subresources') as [Review];
    expect(review.request).to.deep.include({
      operation: 'UPDATE',
      name: 'tenant',
      namespace: 'tenant',
      subResource: 'status',
    });
    expect(review.request.oldObject?.metadata.labels).to.include({ tenancy: 'a' });
    expect(review.request.object?.metadata.labels).to.include({ tenancy: 'b' });
    expect(webhooks.sent('/main'), 'the rule on namespaces alone is not called').to.deep.equal([]);
    // The stored labels decide: a Namespace that does not carry tenancy=a is not sent.
    await call(cluster.emulator, 'POST', '/api/v1/namespaces', { metadata: { name: 'other' } });
    const other = { metadata: { name: 'other', labels: { tenancy: 'a' } }, status: { phase: 'Active' } };
    expect((await call(cluster.emulator, 'PUT', '/api/v1/namespaces/other/status', other)).status).to.equal(200);
  });

  it('calls a webhook only when its matchConditions hold; an erring condition refuses under Fail, skips under Ignore', async () => {
    webhooks.on('/tier', () => deny('tier changes are reviewed'));
    await register('Validating', 'tier', [
      {
        path: '/tier',
        url: 'https://127.0.0.1:1',
        matchConditions: [
          { name: 'tier-changes', expression: 'oldObject == null || object.data.tier != oldObject.data.tier' },
        ],
      },
    ]);
    const created = await call(cluster.emulator, 'POST', CM, configMap('t', {}, { tier: 'a' }));
    expect(created.status, 'a create matches, and the webhook is down').to.equal(500);
    await call(
      cluster.emulator,
      'DELETE',
      '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/tier',
    );
    await call(cluster.emulator, 'POST', CM, configMap('t', {}, { tier: 'a' }));
    await register('Validating', 'tier', [
      {
        path: '/tier',
        matchConditions: [
          { name: 'tier-changes', expression: 'oldObject == null || object.data.tier != oldObject.data.tier' },
        ],
      },
    ]);
    const unchanged = await call(cluster.emulator, 'PUT', `${CM}/t`, configMap('t', {}, { tier: 'a', other: 'x' }));
    expect(unchanged.status, 'the tier did not change: the webhook is not called').to.equal(200);
    const changed = await call(cluster.emulator, 'PUT', `${CM}/t`, configMap('t', {}, { tier: 'b' }));
    expect((changed.body as { message: string }).message).to.match(/tier changes are reviewed$/);
    await register('Validating', 'erring', [
      { path: '/tier', matchConditions: [{ name: 'missing', expression: 'object.data.missing == "x"' }] },
    ]);
    const erring = await call(cluster.emulator, 'PUT', `${CM}/t`, configMap('t', {}, { tier: 'a', other: 'y' }));
    expect(erring.status).to.equal(403);
    expect((erring.body as { message: string }).message).to.equal(
      `configmaps "t" is forbidden: expression 'object.data.missing == "x"' resulted in error: no such key: missing`,
    );
    await register('Validating', 'ignoring', [
      {
        path: '/tier',
        failurePolicy: 'Ignore',
        matchConditions: [{ name: 'missing', expression: 'object.data.missing == "x"' }],
      },
    ]);
    await call(
      cluster.emulator,
      'DELETE',
      '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/erring',
    );
    const ignored = await call(cluster.emulator, 'PUT', `${CM}/t`, configMap('t', {}, { tier: 'a', other: 'z' }));
    expect(ignored.status, 'Ignore: the erring webhook is skipped').to.equal(200);
    const refusedConfiguration = await call(
      cluster.emulator,
      'POST',
      '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
      {
        metadata: { name: 'broken' },
        webhooks: [
          {
            name: 'broken.example.com',
            admissionReviewVersions: ['v1'],
            sideEffects: 'None',
            clientConfig: { url: 'https://127.0.0.1:1' },
            matchConditions: [{ name: 'self', expression: 'self.x == 1' }],
          },
        ],
      },
    );
    expect((refusedConfiguration.body as { message: string }).message).to.match(
      /webhooks\[0\]\.matchConditions\[0\]\.expression: Invalid value: "self.x == 1": compilation failed: ERROR: <input>:1:1: undeclared reference to 'self'/,
    );
  });

  it('never sends webhook configurations to webhooks, so a broken one can always be removed', async () => {
    await register('Validating', 'everything', [
      {
        path: '/x',
        url: 'https://127.0.0.1:1',
        rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'] }],
      },
    ]);
    expect((await call(cluster.emulator, 'POST', CM, configMap('z'))).status).to.equal(500);
    const removed = await call(
      cluster.emulator,
      'DELETE',
      '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/everything',
    );
    expect(removed.status).to.equal(200);
  });
});
