import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import {
  AdmissionregistrationV1Api,
  ApiextensionsV1Api,
  AppsV1Api,
  AuthorizationV1Api,
  CoreV1Api,
  KubeConfig,
  PolicyV1Api,
  RbacAuthorizationV1Api,
} from '@kubernetes/client-node';
import { startKubeEmulator, type KubeEmulator } from '@keymaster/kube-emulator';
import { requireHelm, startRealKube, type RealKube } from '@keymaster/testenv';
import { expect } from 'chai';
import { parse } from 'yaml';
import { CHART, readText } from './repo.js';
import { NAMESPACE, RELEASE, SCRATCH, helm, valuesFile } from './helm.js';

const CRDS = [
  'awsclusters',
  'awsclustercontrolleridentities',
  'awsclusterstaticidentities',
  'awsclusterroleidentities',
  'awstagpolicies',
  'awsclusterledgers',
].map((plural) => `${plural}.infrastructure.keymaster.dev`);
const SERVICE_ACCOUNT = `system:serviceaccount:${NAMESPACE}:keymaster`;
/** Every verb on Secrets: none is granted outside the release namespace unless vending is enabled there. */
const SECRET_VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];
const appVersion = (parse(readText('deploy/helm/keymaster/Chart.yaml')) as { appVersion: string }).appVersion;

interface Server {
  kubeConfig: KubeConfig;
  /** A kubeconfig file for helm. */
  kubeconfig: string;
  /** Values every install on this server needs. */
  values: object;
}

async function connect(server: KubeEmulator | RealKube, values: object = {}): Promise<Server> {
  const kubeconfig = join(await mkdtemp(join(SCRATCH, 'kube-')), 'kubeconfig');
  await server.writeKubeConfig(kubeconfig);
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(server.kubeConfig());
  return { kubeConfig, kubeconfig, values };
}

async function helmOk(server: Server, args: string[]): Promise<string> {
  const result = await helm(args, server.kubeconfig);
  expect(result.code, `helm ${args.join(' ')}:\n${result.stderr}`).to.equal(0);
  return result.stdout;
}

const install = async (server: Server, values: object = {}) =>
  helmOk(server, [
    'install',
    RELEASE,
    CHART,
    '--namespace',
    NAMESPACE,
    '--create-namespace',
    '-f',
    await valuesFile({ ...server.values, ...values }),
  ]);
const upgrade = async (server: Server, values: object) =>
  helmOk(server, [
    'upgrade',
    RELEASE,
    CHART,
    '--namespace',
    NAMESPACE,
    '-f',
    await valuesFile({ ...server.values, ...values }),
  ]);

/** What an install leaves on the server: the CRDs from crds/, then the release's objects. */
async function expectInstalled(server: Server): Promise<string[]> {
  const crds = await server.kubeConfig.makeApiClient(ApiextensionsV1Api).listCustomResourceDefinition();
  const established = crds.items
    .filter((crd) => crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True'))
    .map((crd) => crd.metadata?.name);
  expect(established).to.include.members(CRDS);
  const deployment = await server.kubeConfig
    .makeApiClient(AppsV1Api)
    .readNamespacedDeployment({ namespace: NAMESPACE, name: 'keymaster-controller' });
  expect(deployment.spec?.template.spec?.containers[0]?.image).to.equal(`keymaster:${appVersion}`);
  expect(deployment.spec?.template.spec?.serviceAccountName).to.equal('keymaster');
  const core = server.kubeConfig.makeApiClient(CoreV1Api);
  await core.readNamespacedServiceAccount({ namespace: NAMESPACE, name: 'keymaster' });
  await core.readNamespacedService({ namespace: NAMESPACE, name: 'keymaster-controller-metrics' });
  const rbac = server.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
  await rbac.readClusterRole({ name: 'keymaster-manager' });
  await rbac.readClusterRoleBinding({ name: 'keymaster-manager' });
  await rbac.readNamespacedRole({ namespace: NAMESPACE, name: 'keymaster-manager' });
  await rbac.readNamespacedRoleBinding({ namespace: NAMESPACE, name: 'keymaster-manager' });
  return deployment.spec?.template.spec?.containers[0]?.args ?? [];
}

/**
 * Upgrading with watch.namespace, credential vending in tenant-a and other flags rewrites the Deployment
 * and adds the Role and the vending RoleBinding in that namespace.
 */
async function expectUpgraded(server: Server): Promise<void> {
  await server.kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: 'tenant-a' } } });
  await upgrade(server, {
    watch: { namespace: 'tenant-a' },
    controller: { syncPeriod: '5m' },
    credentialVending: { allowedNamespaces: { list: ['tenant-a'] } },
  });
  const deployment = await server.kubeConfig
    .makeApiClient(AppsV1Api)
    .readNamespacedDeployment({ namespace: NAMESPACE, name: 'keymaster-controller' });
  expect(deployment.spec?.template.spec?.containers[0]?.args).to.include.members([
    '--watch-namespace=tenant-a',
    '--sync-period=5m',
  ]);
  const role = await server.kubeConfig
    .makeApiClient(RbacAuthorizationV1Api)
    .readNamespacedRole({ namespace: 'tenant-a', name: 'keymaster-awsclusters' });
  expect(role.rules?.flatMap((rule) => rule.resources)).to.deep.equal([
    'awsclusters',
    'awsclusters/status',
    'awsclusterledgers',
  ]);
  const vending = await server.kubeConfig
    .makeApiClient(RbacAuthorizationV1Api)
    .readNamespacedRoleBinding({ namespace: 'tenant-a', name: 'keymaster-credential-vending' });
  expect(vending.roleRef.name).to.equal('keymaster-credential-vending');
}

describe('helm install of deploy/helm/keymaster', function () {
  this.timeout(180_000);

  before(() => requireHelm());

  describe('into the kube-emulator', () => {
    let emulator: KubeEmulator;
    let server: Server;

    before(async () => {
      emulator = await startKubeEmulator();
      // It serves no policy/v1 (docs/emulators/kube-emulator.md): the PodDisruptionBudget is installed on the real server.
      server = await connect(emulator, { podDisruptionBudget: { enabled: false } });
    });
    after(() => emulator.stop());

    it('installs the CRDs and every object, then upgrades them', async () => {
      const notes = await install(server);
      expect(notes).to.include(`kubectl -n ${NAMESPACE} rollout status deployment/keymaster-controller`);
      expect(notes).to.include('kubectl get awsclusters.infrastructure.keymaster.dev -A');
      expect(await expectInstalled(server)).to.include('--leader-elect');
      expect(await helmOk(server, ['status', RELEASE, '--namespace', NAMESPACE])).to.match(/STATUS: deployed/);
      await expectUpgraded(server);
    });
  });

  describe('into kube-apiserver (packages/testenv)', () => {
    // Undefined when it could not start (binaries missing: startRealKube says how to build them).
    let kube: RealKube | undefined;
    let server: Server;

    /** What the API server's RBAC lets the controller's ServiceAccount do, asked with a SubjectAccessReview. */
    const allowed = async (
      verb: string,
      resource: string,
      namespace?: string,
      group = 'infrastructure.keymaster.dev',
    ) => {
      const review = await server.kubeConfig.makeApiClient(AuthorizationV1Api).createSubjectAccessReview({
        body: {
          spec: {
            user: SERVICE_ACCOUNT,
            groups: ['system:serviceaccounts', `system:serviceaccounts:${NAMESPACE}`, 'system:authenticated'],
            resourceAttributes: { verb, group, resource, ...(namespace ? { namespace } : {}) },
          },
        },
      });
      return review.status?.allowed ?? false;
    };

    before(async () => {
      kube = await startRealKube();
      server = await connect(kube);
    });
    after(() => kube?.stop());

    it('installs with the defaults (the PodDisruptionBudget too); RBAC grants the controller what deploy/rbac does', async () => {
      await install(server);
      await expectInstalled(server);
      const budget = await server.kubeConfig
        .makeApiClient(PolicyV1Api)
        .readNamespacedPodDisruptionBudget({ namespace: NAMESPACE, name: 'keymaster-controller' });
      expect(budget.spec?.maxUnavailable).to.equal(1);
      const policies = server.kubeConfig.makeApiClient(AdmissionregistrationV1Api);
      await policies.readValidatingAdmissionPolicy({ name: 'keymaster-ledger-writers' });
      const binding = await policies.readValidatingAdmissionPolicyBinding({ name: 'keymaster-ledger-writers' });
      expect(binding.spec?.validationActions).to.deep.equal(['Deny']);
      expect(await allowed('watch', 'awsclusters')).to.equal(true);
      expect(await allowed('update', 'awsclusters/status', 'tenant-a')).to.equal(true);
      expect(await allowed('list', 'secrets', NAMESPACE, '')).to.equal(true);
      expect(await allowed('get', 'secrets', NAMESPACE, ''), 'secrets are read from the cache only').to.equal(false);
      // No namespace has credential vending: no Secret of any other namespace may be read or written.
      for (const verb of SECRET_VERBS)
        expect(await allowed(verb, 'secrets', 'tenant-a', ''), `${verb} secrets in tenant-a`).to.equal(false);
      expect(await allowed('list', 'secrets', undefined, ''), 'secrets of every namespace').to.equal(false);
      expect(await allowed('create', 'awsclustercontrolleridentities'), 'the gate is off').to.equal(false);
      expect(await allowed('delete', 'awsclusters', 'tenant-a')).to.equal(false);
    });

    it('with watch.namespace, the controller may touch AWSClusters of that namespace only', async () => {
      await expectUpgraded(server);
      expect(await allowed('list', 'awsclusters', 'tenant-a')).to.equal(true);
      expect(await allowed('update', 'awsclusters/status', 'tenant-a')).to.equal(true);
      expect(await allowed('list', 'awsclusters', 'tenant-b')).to.equal(false);
      expect(await allowed('list', 'awsclusters'), 'across namespaces').to.equal(false);
      expect(await allowed('watch', 'awsclusterroleidentities'), 'identities stay cluster-wide').to.equal(true);
    });

    it("with credentialVending.allowedNamespaces.list, the controller may use requests' Secret verbs in those namespaces only", async () => {
      for (const verb of ['list', 'watch', 'create', 'update', 'delete'])
        expect(await allowed(verb, 'secrets', 'tenant-a', ''), `${verb} secrets in tenant-a`).to.equal(true);
      expect(await allowed('get', 'secrets', 'tenant-a', ''), 'never by name').to.equal(false);
      expect(await allowed('patch', 'secrets', 'tenant-a', '')).to.equal(false);
      for (const verb of SECRET_VERBS)
        expect(await allowed(verb, 'secrets', 'tenant-b', ''), `${verb} secrets in tenant-b`).to.equal(false);
      expect(await allowed('list', 'secrets', undefined, ''), 'secrets of every namespace').to.equal(false);
    });

    it('uninstalls everything but the CRDs (Helm never deletes those: they hold every AWSCluster)', async () => {
      await helmOk(server, ['uninstall', RELEASE, '--namespace', NAMESPACE]);
      const rbac = server.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
      const gone = await rbac.readClusterRole({ name: 'keymaster-manager' }).then(
        () => false,
        () => true,
      );
      expect(gone, 'ClusterRole deleted').to.equal(true);
      const roles = await rbac.listNamespacedRole({ namespace: 'tenant-a' });
      expect(roles.items.map((role) => role.metadata?.name)).to.not.include('keymaster-awsclusters');
      const crds = await server.kubeConfig.makeApiClient(ApiextensionsV1Api).listCustomResourceDefinition();
      expect(crds.items.map((crd) => crd.metadata?.name)).to.include.members(CRDS);
    });
  });
});
