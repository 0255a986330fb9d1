import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import { ADOPT_LABEL, ADOPT_LABEL_VALUE, PAUSED_ANNOTATION } from '@keymaster/api';
import { startAwsEmulator, type AwsEmulator } from '@keymaster/aws-emulator';
import { installCapa, renderCapaCluster, type CapaFlavour } from '@keymaster/testenv';
import { loadAllYaml, type KubernetesObject } from '@kubernetes/client-node';
import { AwsFacts } from './support/aws-facts.js';
import { MANAGEMENT, TAGGER, clusterResources, controllerUser } from './support/aws-world.js';
import { CAPA_NAMESPACE, capaIdentity } from './support/capa-world.js';
import { REPO_ROOT, type ControllerProcess } from './support/controller-process.js';
import { eventually } from './support/eventually.js';
import { kubectl } from './support/kubectl.js';
import { awsCluster, namespace, tagPolicy } from './support/objects.js';
import { RbacManagementCluster } from './support/rbac-management-cluster.js';
import { CONTROLLER_SERVICE_ACCOUNT } from './support/rbac-manifests.js';

const TENANT = 'payments';
const ELSEWHERE = 'elsewhere';
const CAPA = 'infrastructure.cluster.x-k8s.io';
const ADOPTION_RBAC = 'deploy/cluster-api/adoption-rbac.yaml';
/** Short, so that a test sees quiet resyncs write nothing. */
const SYNC_PERIOD = '2s';
/** CAPA's default EKS name for the EKS template's cluster orders: <namespace>_<control plane name>. */
const EKS_NAME = `${TENANT}_orders-control-plane`;

interface ClusterAPICluster extends KubernetesObject {
  spec: { paused?: boolean };
}

const clusterRef = (namespace: string, name: string) => ({
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'Cluster',
  metadata: { namespace, name },
});

/**
 * CAPA's own templates (clusterctl generate cluster), applied by ops with kubectl after `keymaster run
 * --adopt-cluster-api` started, in a namespace ops labelled keymaster.dev/adopt=cluster-api: each gets a
 * companion AWSCluster, with no Keymaster object written by hand. No controller of Cluster API or CAPA
 * runs (docs/testenv.md): the companion is computed as CAPA's webhooks would default it.
 */
describe('following Cluster API clusters (--adopt-cluster-api)', function () {
  let aws: AwsEmulator | undefined;
  let management: RbacManagementCluster | undefined;
  let controller: ControllerProcess | undefined;

  const as = (user: 'ops' | 'tenant', args: string[], stdin?: string) =>
    kubectl(
      management!.dir,
      user === 'ops' ? management!.opsKubeConfig() : management!.server.kubeConfig({ token: `${TENANT}-token` }),
      args,
      stdin,
    );
  const ok = async (user: 'ops' | 'tenant', args: string[], stdin?: string) => {
    const result = await as(user, args, stdin);
    expect(result, `kubectl ${args.join(' ')}`).to.include({ code: 0 });
  };
  const apply = async (flavour: CapaFlavour, name: string, ns = TENANT) =>
    ok('ops', ['apply', '-f', '-'], await renderCapaCluster({ flavour, name, namespace: ns }));
  const companion = (name: string, ns = TENANT) => management!.ops.cluster(ns, name);
  const companionGone = (name: string, ns = TENANT) =>
    eventually(async () => {
      const error = await companion(name, ns).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(error, `${ns}/${name} still there`).to.have.property('code', 404);
    });
  const uidOf = async (name: string, ns = TENANT) =>
    (await management!.ops.read<ClusterAPICluster>(clusterRef(ns, name))).metadata!.uid;

  before(async () => {
    aws = await startAwsEmulator({
      world: {
        accounts: [
          {
            id: MANAGEMENT,
            users: [controllerUser(TAGGER)],
            // What CAPA made for the plain template's cluster prod, and EKS for orders' control plane.
            resources: [
              ...clusterResources(MANAGEMENT, 'eu-west-1', 'prod', 2),
              ...clusterResources(MANAGEMENT, 'eu-west-1', EKS_NAME, 2),
            ],
          },
        ],
      },
    });
    management = await RbacManagementCluster.start({
      tenants: [{ name: TENANT }],
      objects: [
        namespace(TENANT, { [ADOPT_LABEL]: ADOPT_LABEL_VALUE }),
        namespace(ELSEWHERE),
        namespace(CAPA_NAMESPACE),
        tagPolicy([{ key: 'platform', value: 'keymaster' }]),
      ],
    });
    await installCapa(management.opsKubeConfig());
    // As docs/capa.md says, beside deploy/: the adoption's rights and the reads of CAPA's identities.
    await ok('ops', ['apply', '-k', join(REPO_ROOT, 'deploy/cluster-api')]);
    // The identity CAPA's plain and EKS templates use (none named: CAPA's default), made by ops.
    await management.install([
      capaIdentity('AWSClusterControllerIdentity', 'default', { allowedNamespaces: { list: [TENANT] } }),
    ]);
    controller = await management.startController({
      awsUrl: aws.url,
      args: ['--adopt-cluster-api'],
      syncPeriod: SYNC_PERIOD,
    });
  });

  after(async () => {
    await management?.stop();
    await aws?.stop();
  });

  it("keeps a companion of CAPA's plain template: its region, name, identity, origin, labels, owned by the Cluster", async () => {
    await apply('plain', 'prod');
    const uid = await uidOf('prod');
    const made = await eventually(() => companion('prod'));
    expect(made.spec).to.deep.equal({
      region: 'eu-west-1',
      clusterName: 'prod',
      identityRef: { apiGroup: CAPA, kind: 'AWSClusterControllerIdentity', name: 'default' },
      clusterAPI: {
        clusterRef: { name: 'prod' },
        infrastructureRef: { apiGroup: CAPA, kind: 'AWSCluster', name: 'prod' },
      },
    });
    expect(made.metadata.labels).to.deep.equal({ ccm: 'external', csi: 'external' });
    expect(made.metadata.ownerReferences).to.deep.equal([
      { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', name: 'prod', uid, controller: true },
    ]);
  });

  it("names an EKS template's companion as CAPA does: <namespace>_<control plane name>", async () => {
    await apply('eks', 'orders');
    const made = await eventually(() => companion('orders'));
    expect(made.spec.clusterName).to.equal('payments_orders-control-plane');
    expect(made.spec.region).to.equal('eu-west-1');
    expect(made.spec.clusterAPI?.infrastructureRef).to.deep.equal({
      apiGroup: 'controlplane.cluster.x-k8s.io',
      kind: 'AWSManagedControlPlane',
      name: 'orders-control-plane',
    });
  });

  it("tags each companion's resources with the controller's credentials, through CAPA's identity", async () => {
    for (const [name, clusterName] of [
      ['prod', 'prod'],
      ['orders', EKS_NAME],
    ] as const) {
      await eventually(async () => {
        const made = await companion(name);
        const ready = made.status?.conditions?.find(({ type }) => type === 'Ready');
        expect(ready?.status, `${name}: ${ready?.reason}: ${ready?.message}`).to.equal('True');
        expect(made.status?.identityChain, name).to.deep.equal([
          { apiGroup: CAPA, kind: 'AWSClusterControllerIdentity', name: 'default' },
        ]);
      });
      for (const { arn } of clusterResources(MANAGEMENT, 'eu-west-1', clusterName, 2))
        expect(new AwsFacts(aws!).tags(arn), arn).to.include({ platform: 'keymaster' });
    }
  });

  it('writes nothing to the companions on quiet resyncs', async () => {
    for (const name of ['prod', 'orders'])
      await eventually(async () => expect((await companion(name)).metadata.finalizers ?? []).to.not.be.empty);
    const writes = () =>
      ['create', 'patch', 'delete'].reduce(
        (sum, verb) =>
          sum +
          management!.server.requests.total({
            verb,
            resource: 'awsclusters.infrastructure.keymaster.dev',
            user: CONTROLLER_SERVICE_ACCOUNT,
          }),
        0,
      );
    const reconciles = () => controller!.metric('controller_runtime_reconcile_total', { controller: 'adoption' });
    const [before, reconciled] = [writes(), await reconciles()];
    // Two resyncs of both Clusters at least.
    await eventually(async () => expect(await reconciles()).to.be.at.least(reconciled + 4), { timeoutMs: 120_000 });
    expect(writes()).to.equal(before);
  });

  it("writes back the tenant's own edit of a companion", async () => {
    const made = await eventually(() => companion('prod'));
    await ok('tenant', [
      'patch',
      `awsclusters.infrastructure.keymaster.dev/prod`,
      '-n',
      TENANT,
      '--type=merge',
      '-p',
      JSON.stringify({ spec: { additionalTags: { owner: 'tenant' }, region: 'us-west-2' } }),
    ]);
    await eventually(async () => expect((await companion('prod')).spec).to.deep.equal(made.spec));
  });

  it("pauses the companion with the Cluster's spec.paused and with CAPA's pause annotation, and unpauses it", async () => {
    const paused = async (expected: boolean) =>
      eventually(async () =>
        expect((await companion('prod')).metadata.annotations?.[PAUSED_ANNOTATION] !== undefined).to.equal(expected),
      );
    const cluster = ['clusters.cluster.x-k8s.io/prod', '-n', TENANT];
    await ok('ops', ['patch', ...cluster, '--type=merge', '-p', '{"spec":{"paused":true}}']);
    await paused(true);
    await ok('ops', ['patch', ...cluster, '--type=merge', '-p', '{"spec":{"paused":false}}']);
    await paused(false);
    const capaCluster = [`awsclusters.${CAPA}/prod`, '-n', TENANT];
    await ok('ops', ['annotate', ...capaCluster, `${PAUSED_ANNOTATION}=true`]);
    await paused(true);
    await ok('ops', ['annotate', ...capaCluster, `${PAUSED_ANNOTATION}-`]);
    await paused(false);
  });

  it('leaves a hand-made AWSCluster of the name alone, and says so on the Cluster', async () => {
    await management!.ops.create(awsCluster(TENANT, 'legacy', { region: 'eu-central-1' }));
    await apply('plain', 'legacy');
    await eventually(async () =>
      expect((await management!.ops.events(TENANT, 'legacy')).map(({ reason }) => reason)).to.include(
        'HandMadeAWSCluster',
      ),
    );
    const kept = await companion('legacy');
    expect(kept.spec).to.deep.include({ region: 'eu-central-1' });
    expect(kept.spec.clusterAPI).to.equal(undefined);
    expect(kept.metadata.ownerReferences).to.equal(undefined);
  });

  it('follows a namespace from when ops label it until they unlabel it', async () => {
    await apply('plain', 'idle', ELSEWHERE);
    // The labelled namespace's cluster, applied after, is followed: the unlabelled one's was seen first.
    await apply('plain', 'after-idle');
    await eventually(() => companion('after-idle'));
    await companionGone('idle', ELSEWHERE);
    await ok('ops', ['label', 'namespace', ELSEWHERE, `${ADOPT_LABEL}=${ADOPT_LABEL_VALUE}`]);
    const made = await eventually(() => companion('idle', ELSEWHERE));
    expect(made.metadata.ownerReferences?.[0]?.uid).to.equal(await uidOf('idle', ELSEWHERE));
    await ok('ops', ['label', 'namespace', ELSEWHERE, `${ADOPT_LABEL}-`]);
    await companionGone('idle', ELSEWHERE);
  });

  it('deletes the companion with its Cluster', async () => {
    await eventually(() => companion('orders'));
    await ok('ops', ['delete', 'clusters.cluster.x-k8s.io/orders', '-n', TENANT]);
    await companionGone('orders');
    // The hand-made one stays, its Cluster deleted too.
    await ok('ops', ['delete', 'clusters.cluster.x-k8s.io/legacy', '-n', TENANT]);
    await eventually(async () =>
      expect(await management!.ops.read<ClusterAPICluster>(clusterRef(TENANT, 'legacy')).catch(() => 'gone')).to.equal(
        'gone',
      ),
    );
    expect((await companion('legacy')).spec.region).to.equal('eu-central-1');
  });

  it(`was never refused, and used every right of ${ADOPTION_RBAC}`, async () => {
    const requests = management!.server.requests.requests({ user: CONTROLLER_SERVICE_ACCOUNT });
    expect(
      requests.filter(({ forbidden }) => forbidden > 0).map(({ verb, resource }) => `${verb} ${resource}`),
    ).to.deep.equal([]);
    const used = new Set(requests.map(({ verb, resource }) => `${verb} ${resource}`));
    const [role] = loadAllYaml(await readFile(join(REPO_ROOT, ADOPTION_RBAC), 'utf8')) as {
      rules: { apiGroups: string[]; resources: string[]; verbs: string[] }[];
    }[];
    const granted = role!.rules.flatMap(({ apiGroups, resources, verbs }) =>
      apiGroups.flatMap((group) =>
        resources.flatMap((resource) => verbs.map((verb) => `${verb} ${resource}.${group}`)),
      ),
    );
    expect(granted.filter((permission) => !used.has(permission))).to.deep.equal([]);
  });
});
