import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ApiextensionsV1Api,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  loadAllYaml,
  PatchStrategy,
  setHeaderOptions,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { expect } from 'chai';
import { installManifests, installObjects, manifests } from './helpers/deploy.js';
import { call, startTestCluster, type TestCluster } from './helpers/emulator.js';
import { failure } from './helpers/failure.js';

const CONTROLLER = 'system:serviceaccount:keymaster-system:keymaster';
const GROUP = 'infrastructure.keymaster.dev';
const VERSION = 'v1beta1';
const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** Each call, one after the other, is refused with 403. */
async function expectRefused(...calls: (() => Promise<unknown>)[]): Promise<void> {
  for (const [index, refused] of calls.entries())
    expect((await failure(refused())).code, `call ${index + 1}`).to.equal(403);
}

/** The YAML block after a marker (`<!-- name: ... -->`) of a page of docs/. */
function docsExample(page: string, marker: string): KubernetesObject[] {
  const doc = readFileSync(fileURLToPath(new URL(`../../../docs/${page}`, import.meta.url)), 'utf8');
  const block = new RegExp(`<!-- ${marker}[^>]*-->\\s*\`\`\`yaml\\n([\\s\\S]*?)\`\`\``).exec(doc);
  if (!block) throw new Error(`docs/${page} has no ${marker} YAML block`);
  return loadAllYaml(block[1]!) as KubernetesObject[];
}

/** The tenant RBAC example of docs/security.md. */
const tenantRbacExample = () => docsExample('security.md', 'tenant-rbac');
/** The RoleBinding that enables credential vending in tenant-a, as docs/credentials.md shows it. */
const credentialVendingExample = () => docsExample('credentials.md', 'credential-vending');

/**
 * deploy/rbac as a contract, on an API server that enforces RBAC: what the controller's
 * ServiceAccount may do, and what it may not (the e2e tests run the controller itself under it).
 */
describe('deploy/rbac and the tenant RBAC of docs/security.md, enforced', function () {
  this.timeout(30_000);
  let folder: string;
  let cluster: TestCluster;
  let custom: CustomObjectsApi;
  let core: CoreV1Api;
  let leases: CoordinationV1Api;
  let extensions: ApiextensionsV1Api;

  before(async () => {
    folder = mkdtempSync(join(tmpdir(), 'deploy-rbac-'));
    writeFileSync(
      join(folder, 'tokens.csv'),
      `root,root,0,system:masters\ncontroller,${CONTROLLER},1\ndev,dana,2,tenant-a-developers\n`,
    );
    cluster = await startTestCluster({
      tokenAuthFile: join(folder, 'tokens.csv'),
      token: 'root',
      authorization: 'RBAC',
      crds: undefined,
    });
    await installManifests(cluster.kubeConfig, manifests());
    await installObjects(cluster.kubeConfig, tenantRbacExample());
    const controller = new KubeConfig();
    controller.loadFromString(cluster.emulator.kubeConfig({ token: 'controller' }));
    custom = controller.makeApiClient(CustomObjectsApi);
    core = controller.makeApiClient(CoreV1Api);
    leases = controller.makeApiClient(CoordinationV1Api);
    extensions = controller.makeApiClient(ApiextensionsV1Api);
  });
  after(async () => {
    await cluster.stop();
    rmSync(folder, { recursive: true, force: true });
  });

  const kind = (plural: string) => ({ group: GROUP, version: VERSION, plural });
  /** Every call the controller could make on a namespace's Secrets (a watch too): for a namespace without vending. */
  const everySecretCall = (namespace: string) => [
    () => core.listNamespacedSecret({ namespace }),
    () => core.listNamespacedSecret({ namespace, labelSelector: 'keymaster.dev/credentials-request', watch: true }),
    () => core.readNamespacedSecret({ namespace, name: 'aws' }),
    () => core.createNamespacedSecret({ namespace, body: { metadata: { name: 'aws' } } }),
    () => core.replaceNamespacedSecret({ namespace, name: 'aws', body: { metadata: { name: 'aws' } } }),
    () => core.patchNamespacedSecret({ namespace, name: 'aws', body: {} }, merge),
    () => core.deleteNamespacedSecret({ namespace, name: 'aws' }),
    () => core.deleteCollectionNamespacedSecret({ namespace }),
  ];

  it('lists and watches its kinds and Namespaces in every namespace', async () => {
    for (const plural of [
      'awsclusters',
      'awsclustercontrolleridentities',
      'awsclusterstaticidentities',
      'awsclusterroleidentities',
      'awstagpolicies',
    ]) {
      const list = (await custom.listClusterCustomObject(kind(plural))) as { items: unknown[] };
      expect(list.items, plural).to.not.be.empty;
    }
    expect((await core.listNamespace()).items.map((item) => item.metadata?.name)).to.include('tenant-a');
    const watch = (path: string) =>
      call(cluster.emulator, 'GET', `${path}${path.includes('?') ? '&' : '?'}watch=true&timeoutSeconds=1`, undefined, {
        Authorization: 'Bearer controller',
      });
    // Secrets: its own namespace's, and those of namespaces where vending is enabled (deploy/examples
    // enables it in tenant-b), label-selected; never every namespace's at once.
    const [clusters, secrets, vending] = await Promise.all([
      watch(`/apis/${GROUP}/${VERSION}/awsclusters`),
      watch('/api/v1/namespaces/keymaster-system/secrets'),
      watch('/api/v1/namespaces/tenant-b/secrets?labelSelector=keymaster.dev%2Fcredentials-request'),
    ]);
    expect([clusters.status, secrets.status, vending.status]).to.deep.equal([200, 200, 200]);
    expect(cluster.emulator.stats.forbidden({ user: CONTROLLER })).to.equal(0);
  });

  it('writes finalizers (merge patch) and status (PUT), nothing else of an AWSCluster', async () => {
    const target = { ...kind('awsclusters'), namespace: 'tenant-a', name: 'payments-prod' };
    const patched = (await custom.patchNamespacedCustomObject(
      { ...target, body: { metadata: { finalizers: ['infrastructure.keymaster.dev/awscluster'] } } },
      merge,
    )) as { metadata: { resourceVersion: string } };
    await custom.replaceNamespacedCustomObjectStatus({
      ...target,
      body: { ...patched, status: { accountID: '222222222222' } },
    });
    expect((await failure(custom.replaceNamespacedCustomObject({ ...target, body: patched }))).code).to.equal(403);
    expect((await failure(custom.deleteNamespacedCustomObject(target))).code).to.equal(403);
    expect(
      (await failure(custom.getNamespacedCustomObject(target))).code,
      'reads come from the informer caches',
    ).to.equal(403);
  });

  it('lists, watches, creates and replaces AWSClusterLedgers, never gets or deletes one; reads the ledger CRD and no other', async () => {
    const target = { ...kind('awsclusterledgers'), namespace: 'tenant-a' };
    const created = (await custom.createNamespacedCustomObject({
      ...target,
      body: {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'AWSClusterLedger',
        metadata: { name: 'payments-prod' },
        spec: { legacyTagsConverted: '2026-01-01T00:00:00Z' },
      },
    })) as { metadata: { resourceVersion: string } };
    await custom.replaceNamespacedCustomObject({ ...target, name: 'payments-prod', body: created });
    const list = (await custom.listClusterCustomObject(kind('awsclusterledgers'))) as { items: unknown[] };
    expect(list.items).to.have.length(1);
    const watched = await call(
      cluster.emulator,
      'GET',
      `/apis/${GROUP}/${VERSION}/awsclusterledgers?watch=true&timeoutSeconds=1`,
      undefined,
      { Authorization: 'Bearer controller' },
    );
    expect(watched.status).to.equal(200);
    await extensions.readCustomResourceDefinition({ name: `awsclusterledgers.${GROUP}` });
    await expectRefused(
      () => custom.getNamespacedCustomObject({ ...target, name: 'payments-prod' }),
      () => custom.deleteNamespacedCustomObject({ ...target, name: 'payments-prod' }),
      () => custom.patchNamespacedCustomObject({ ...target, name: 'payments-prod', body: {} }, merge),
      () => extensions.readCustomResourceDefinition({ name: `awsclusters.${GROUP}` }),
      () => extensions.listCustomResourceDefinition(),
    );
  });

  it('creates only AWSClusterControllerIdentity (AutoControllerIdentityCreator), no other identity', async () => {
    const root = cluster.kubeConfig.makeApiClient(CustomObjectsApi);
    await root.deleteClusterCustomObject({ ...kind('awsclustercontrolleridentities'), name: 'default' });
    await custom.createClusterCustomObject({
      ...kind('awsclustercontrolleridentities'),
      body: {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'AWSClusterControllerIdentity',
        metadata: { name: 'default' },
        spec: { allowedNamespaces: {} },
      },
    });
    const role = await failure(
      custom.createClusterCustomObject({
        ...kind('awsclusterroleidentities'),
        body: {
          apiVersion: `${GROUP}/${VERSION}`,
          kind: 'AWSClusterRoleIdentity',
          metadata: { name: 'mine' },
          spec: { roleARN: 'arn:aws:iam::111111111111:role/x' },
        },
      }),
    );
    expect(role.status.message).to.equal(
      `awsclusterroleidentities.${GROUP} is forbidden: User "${CONTROLLER}" cannot create resource "awsclusterroleidentities" in API group "${GROUP}" at the cluster scope`,
    );
    expect(
      (await failure(custom.patchClusterCustomObject({ ...kind('awstagpolicies'), name: 'default', body: {} }, merge)))
        .code,
    ).to.equal(403);
  });

  it('lists, watches and creates AWSAccountBindings (an earlier claim converted), never changes, deletes or gets one', async () => {
    const target = kind('awsaccountbindings');
    await custom.createClusterCustomObject({
      ...target,
      body: {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'AWSAccountBinding',
        metadata: { name: '222222222222' },
        spec: { tenants: ['tenant-a'] },
      },
    });
    const list = (await custom.listClusterCustomObject(target)) as { items: unknown[] };
    expect(list.items).to.have.length(1);
    const watched = await call(
      cluster.emulator,
      'GET',
      `/apis/${GROUP}/${VERSION}/awsaccountbindings?watch=true&timeoutSeconds=1`,
      undefined,
      { Authorization: 'Bearer controller' },
    );
    expect(watched.status).to.equal(200);
    await expectRefused(
      () => custom.getClusterCustomObject({ ...target, name: '222222222222' }),
      () =>
        custom.patchClusterCustomObject({ ...target, name: '222222222222', body: { spec: { tenants: [] } } }, merge),
      () => custom.replaceClusterCustomObject({ ...target, name: '222222222222', body: list.items[0]! }),
      () => custom.deleteClusterCustomObject({ ...target, name: '222222222222' }),
    );
  });

  it('reads and writes Secrets only in keymaster-system and where vending is enabled, and never gets one by name', async () => {
    const secrets = await core.listNamespacedSecret({ namespace: 'keymaster-system' });
    expect(secrets.items.map((item) => item.metadata?.name)).to.deep.equal([
      'tenant-a-credentials',
      'tenant-b-external-id',
    ]);
    await core.patchNamespacedSecret(
      {
        namespace: 'keymaster-system',
        name: 'tenant-a-credentials',
        body: { metadata: { labels: { checked: 'yes' } } },
      },
      merge,
    );
    // AWSCredentialsRequests' Secrets, where deploy/examples enables vending (tenant-b): listed (also by
    // name, to restore one), created, replaced and deleted.
    const created = await core.createNamespacedSecret({ namespace: 'tenant-b', body: { metadata: { name: 'aws' } } });
    await core.replaceNamespacedSecret({ namespace: 'tenant-b', name: 'aws', body: created });
    const byName = await core.listNamespacedSecret({ namespace: 'tenant-b', fieldSelector: 'metadata.name=aws' });
    expect(byName.items.map((item) => item.metadata?.name)).to.deep.equal(['aws']);
    await core.deleteNamespacedSecret({ namespace: 'tenant-b', name: 'aws' });
    await expectRefused(
      () => core.readNamespacedSecret({ namespace: 'keymaster-system', name: 'tenant-a-credentials' }),
      () => core.readNamespacedSecret({ namespace: 'tenant-b', name: 'anything' }),
      () => core.patchNamespacedSecret({ namespace: 'tenant-b', name: 'anything', body: {} }, merge),
      ...everySecretCall('tenant-a'),
      () => core.listSecretForAllNamespaces(),
    );
  });

  it('gets the Secret rights of a namespace from the RoleBinding docs/credentials.md shows, in that namespace only', async () => {
    await installObjects(cluster.kubeConfig, credentialVendingExample());
    await core.createNamespacedSecret({ namespace: 'tenant-a', body: { metadata: { name: 'aws' } } });
    await core.listNamespacedSecret({ namespace: 'tenant-a', labelSelector: 'keymaster.dev/credentials-request' });
    await core.deleteNamespacedSecret({ namespace: 'tenant-a', name: 'aws' });
    await expectRefused(
      () => core.readNamespacedSecret({ namespace: 'tenant-a', name: 'anything' }),
      ...everySecretCall('tenant-c'),
      () => core.listSecretForAllNamespaces(),
    );
  });

  it('creates tokens of ServiceAccounts in any namespace (web identities), and nothing else of ServiceAccounts', async () => {
    const root = cluster.kubeConfig.makeApiClient(CoreV1Api);
    await root.createNamespacedServiceAccount({ namespace: 'tenant-a', body: { metadata: { name: 'keymaster' } } });
    const answer = await core.createNamespacedServiceAccountToken({
      namespace: 'tenant-a',
      name: 'keymaster',
      body: { spec: { audiences: ['sts.amazonaws.com'], expirationSeconds: 600 } },
    });
    expect(answer.status?.token).to.be.a('string').and.not.be.empty;
    await expectRefused(
      () => core.readNamespacedServiceAccount({ namespace: 'tenant-a', name: 'keymaster' }),
      () => core.listServiceAccountForAllNamespaces(),
      () => core.createNamespacedServiceAccount({ namespace: 'tenant-a', body: { metadata: { name: 'mine' } } }),
      () => core.patchNamespacedServiceAccount({ namespace: 'tenant-a', name: 'keymaster', body: {} }, merge),
      () => core.deleteNamespacedServiceAccount({ namespace: 'tenant-a', name: 'keymaster' }),
    );
  });

  it('keeps its Lease in keymaster-system and records Events in any namespace', async () => {
    const lease = await leases.createNamespacedLease({
      namespace: 'keymaster-system',
      body: { metadata: { name: 'keymaster' }, spec: { holderIdentity: 'pod-1' } },
    });
    await leases.replaceNamespacedLease({ namespace: 'keymaster-system', name: 'keymaster', body: lease });
    await leases.readNamespacedLease({ namespace: 'keymaster-system', name: 'keymaster' });
    expect(
      (await failure(leases.createNamespacedLease({ namespace: 'tenant-a', body: { metadata: { name: 'x' } } }))).code,
    ).to.equal(403);
    await core.createNamespacedEvent({
      namespace: 'tenant-b',
      body: {
        metadata: { name: 'e1' },
        involvedObject: { kind: 'AWSCluster', name: 'analytics-prod' },
        reason: 'Test',
        count: 1,
      },
    });
    await core.patchNamespacedEvent({ namespace: 'tenant-b', name: 'e1', body: { count: 2 } }, merge);
    expect((await failure(core.listNamespacedEvent({ namespace: 'tenant-b' }))).code).to.equal(403);
  });

  it("docs/security.md's tenant may manage AWSClusters in its namespace only, and write no identity, Secret, label or account binding", async () => {
    const tenant = new KubeConfig();
    tenant.loadFromString(cluster.emulator.kubeConfig({ token: 'dev' }));
    const tenantCustom = tenant.makeApiClient(CustomObjectsApi);
    const tenantCore = tenant.makeApiClient(CoreV1Api);
    const body = (namespace: string) => ({
      ...kind('awsclusters'),
      namespace,
      body: {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'AWSCluster',
        metadata: { name: 'new' },
        spec: { region: 'eu-west-1' },
      },
    });
    await tenantCustom.createNamespacedCustomObject(body('tenant-a'));
    await tenantCustom.deleteNamespacedCustomObject({ ...kind('awsclusters'), namespace: 'tenant-a', name: 'new' });
    expect((await tenantCore.listNamespacedEvent({ namespace: 'tenant-a' })).items).to.be.an('array');
    const identities = (await tenantCustom.listClusterCustomObject(kind('awsclusterroleidentities'))) as {
      items: unknown[];
    };
    // Identities are cluster-scoped and readable: the tenant sees every one the controller sees.
    const all = (await custom.listClusterCustomObject(kind('awsclusterroleidentities'))) as { items: unknown[] };
    expect(identities.items).to.have.length(all.items.length).and.length.above(0);
    await expectRefused(
      () => tenantCustom.createNamespacedCustomObject(body('tenant-b')),
      () =>
        tenantCustom.patchClusterCustomObject(
          { ...kind('awsclusterroleidentities'), name: 'tenant-b', body: { spec: { allowedNamespaces: {} } } },
          merge,
        ),
      () => tenantCore.listNamespacedSecret({ namespace: 'keymaster-system' }),
      // Which tenants may act in an account is the platform's to say, and not for tenants to read.
      () => tenantCustom.listClusterCustomObject(kind('awsaccountbindings')),
      () =>
        tenantCustom.createClusterCustomObject({
          ...kind('awsaccountbindings'),
          body: {
            apiVersion: `${GROUP}/${VERSION}`,
            kind: 'AWSAccountBinding',
            metadata: { name: '333333333333' },
            spec: { tenants: ['tenant-a'] },
          },
        }),
      // What Keymaster remembers of the tenant's own clusters is the controller's alone.
      () => tenantCustom.listNamespacedCustomObject({ ...kind('awsclusterledgers'), namespace: 'tenant-a' }),
      () =>
        tenantCustom.createNamespacedCustomObject({
          ...kind('awsclusterledgers'),
          namespace: 'tenant-a',
          body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'AWSClusterLedger', metadata: { name: 'new' }, spec: {} },
        }),
      () =>
        tenantCore.patchNamespace(
          { name: 'tenant-a', body: { metadata: { labels: { 'keymaster.dev/tenant': 'tenant-b' } } } },
          merge,
        ),
    );
  });
});
