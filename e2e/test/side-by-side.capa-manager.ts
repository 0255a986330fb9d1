import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EC2Client, DescribeTagsCommand } from '@aws-sdk/client-ec2';
import { GetResourcesCommand, ResourceGroupsTaggingAPIClient } from '@aws-sdk/client-resource-groups-tagging-api';
import { dumpYaml, loadAllYaml } from '@kubernetes/client-node';
import { expect } from 'chai';
import { ADOPT_LABEL, ADOPT_LABEL_VALUE } from '@keymaster/api';
import { renderCapaCluster, startCapaManager, startMoto, type CapaManager, type Moto } from '@keymaster/testenv';
import { CONTROLLER_KEY } from './support/aws-world.js';
import {
  CAPA_NAMESPACE,
  capaIdentity,
  clusterAsStoredAtV1beta2,
  installCapaWith,
  ownedByCluster,
  type Unstructured,
} from './support/capa-world.js';
import type { ControllerProcess } from './support/controller-process.js';
import { eventually } from './support/eventually.js';
import { isReady } from './support/kube.js';
import { kubectl } from './support/kubectl.js';
import { recordedCalls, TAG_WRITE_ACTIONS } from './support/moto-recording.js';
import { namespace, tagPolicy } from './support/objects.js';
import { RbacManagementCluster } from './support/rbac-management-cluster.js';

const TENANT = 'payments';
const NAME = 'prod';
const REGION = 'eu-west-1';
/** CAPA's own principal: its key tells its calls from Keymaster's in moto's recording. */
const CAPA_KEY_ID = 'AKIACAPAMANAGER00001';
const OWNED = `sigs.k8s.io/cluster-api-provider-aws/cluster/${NAME}`;
/** Long enough for CAPA to build its network (minutes on a loaded machine), and for three rounds of both after. */
const CONVERGE_MS = 480_000;

/**
 * CAPA's plain template with two changes for moto 5.2.5 (docs/capa.md): the CNI's ingress rules
 * without IP-in-IP (moto answers 500 to an IP protocol without ports), and the control plane's
 * endpoint given, its load balancer left to "an external provider" (moto answers TargetGroupNotFound
 * for a new NLB, where AWS answers an empty list, and no load balancer's DNS name resolves here).
 * CAPA's `additionalTags` sets `team`, which the platform's policy sets too: Keymaster must leave it
 * to CAPA.
 */
async function capaCluster(): Promise<string> {
  const objects = loadAllYaml(
    await renderCapaCluster({ flavour: 'plain', name: NAME, namespace: TENANT, variables: { AWS_REGION: REGION } }),
  ) as Unstructured[];
  return objects
    .flatMap((object): Unstructured[] => {
      if (object.kind === 'Cluster') return [clusterAsStoredAtV1beta2(object)];
      if (object.kind !== 'AWSCluster') return [];
      const spec = {
        ...object.spec,
        additionalTags: { team: TENANT },
        controlPlaneLoadBalancer: { loadBalancerType: 'disabled' },
        controlPlaneEndpoint: { host: `api.${NAME}.${TENANT}.example.com`, port: 6443 },
        network: { cni: { cniIngressRules: [{ description: 'bgp', protocol: 'tcp', fromPort: 179, toPort: 179 }] } },
      };
      return [{ ...object, spec }];
    })
    .map((object) => dumpYaml(object))
    .join('---\n');
}

/**
 * Issue 26's stretch: CAPA's own manager (built from its module) and Keymaster with
 * --adopt-cluster-api, side by side on the same AWS resources in moto. CAPA builds the cluster's
 * network and tags it; Keymaster adds the platform's tags; then, while both keep reconciling, not one
 * tag is written by either. Not in CI (docs/testenv.md: building the manager costs CI's budget);
 * `pnpm --filter @keymaster/e2e test:capa-manager`.
 */
describe("CAPA's manager and Keymaster side by side on moto", function () {
  let dir: string;
  let moto: Moto;
  let management: RbacManagementCluster;
  let controller: ControllerProcess;
  let capa: CapaManager | undefined;
  const recording = () => recordedCalls(join(dir, 'moto.jsonl'));
  const credentials = { accessKeyId: 'AKIATESTREADER000001', secretAccessKey: 'any' };
  let ec2: EC2Client;
  let tagging: ResourceGroupsTaggingAPIClient;

  /**
   * CAPA's resources of the cluster as moto's tagging API lists them (what Keymaster finds, by ARN):
   * every one but its elastic IPs, which moto's GetResources does not list (AWS's does).
   */
  const listed = async (): Promise<Map<string, Record<string, string>>> => {
    const found = new Map<string, Record<string, string>>();
    let PaginationToken: string | undefined;
    do {
      const page = await tagging.send(
        new GetResourcesCommand({ TagFilters: [{ Key: OWNED, Values: ['owned'] }], PaginationToken }),
      );
      for (const { ResourceARN, Tags = [] } of page.ResourceTagMappingList ?? [])
        found.set(ResourceARN!, Object.fromEntries(Tags.map(({ Key, Value }) => [Key!, Value!])));
      PaginationToken = page.PaginationToken || undefined;
    } while (PaginationToken);
    return found;
  };

  before(async function () {
    this.timeout(CONVERGE_MS);
    dir = await mkdtemp(join(tmpdir(), 'keymaster-side-by-side-'));
    moto = await startMoto({ recordTo: join(dir, 'moto.jsonl') });
    ec2 = new EC2Client({ endpoint: moto.url, region: REGION, credentials });
    tagging = new ResourceGroupsTaggingAPIClient({ endpoint: moto.url, region: REGION, credentials });
    management = await RbacManagementCluster.start({
      tenants: [],
      objects: [
        namespace(TENANT, { [ADOPT_LABEL]: ADOPT_LABEL_VALUE }),
        namespace(CAPA_NAMESPACE),
        tagPolicy([
          { key: 'platform', value: 'keymaster' },
          { key: 'team', value: 'platform' },
        ]),
      ],
    });
    await installCapaWith(management, [
      capaIdentity('AWSClusterControllerIdentity', 'default', { allowedNamespaces: { list: [TENANT] } }),
    ]);
    controller = await management.startController({
      awsUrl: moto.url,
      args: ['--adopt-cluster-api'],
      syncPeriod: '2s',
    });
    const applied = await kubectl(
      management.dir,
      management.opsKubeConfig(),
      ['apply', '-f', '-'],
      await capaCluster(),
    );
    expect(applied, applied.stderr).to.include({ code: 0 });
    // What Cluster API's Cluster controller, which does not run here, sets.
    const cluster = await management.ops.read<Unstructured>({
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Cluster',
      metadata: { namespace: TENANT, name: NAME },
    });
    await management.ops.patch(
      {
        apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2',
        kind: 'AWSCluster',
        metadata: { namespace: TENANT, name: NAME },
      },
      ownedByCluster(NAME, cluster.metadata!.uid!),
    );
    capa = await startCapaManager({
      kubeConfig: management.opsKubeConfig(),
      awsUrl: moto.url,
      region: REGION,
      accessKeyId: CAPA_KEY_ID,
    });
  });

  after(async () => {
    // Each as far as `before` got.
    await capa?.stop();
    await (management as RbacManagementCluster | undefined)?.stop();
    await (moto as Moto | undefined)?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("CAPA builds the cluster's network in moto, with its own tags, and says the AWSCluster is ready", async function () {
    this.timeout(CONVERGE_MS);
    await eventually(
      async () => {
        const awsCluster = await management.ops.read<Unstructured & { status?: { ready?: boolean } }>({
          apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2',
          kind: 'AWSCluster',
          metadata: { namespace: TENANT, name: NAME },
        });
        expect(awsCluster.status?.ready, capa!.log().slice(-2000)).to.equal(true);
      },
      { timeoutMs: CONVERGE_MS },
    );
    const types = [...(await listed()).keys()].map((arn) => arn.split(':')[5]!.split('/')[0]);
    for (const type of ['vpc', 'subnet', 'security-group', 'route-table', 'natgateway', 'internet-gateway'])
      expect(types, type).to.include(type);
    const { Tags = [] } = await ec2.send(new DescribeTagsCommand({ Filters: [{ Name: 'key', Values: ['team'] }] }));
    expect(Tags.map(({ Value }) => Value)).to.include(TENANT);
  });

  it("Keymaster adds the platform's tags to every one and leaves CAPA's key to CAPA, reporting the conflict", async function () {
    this.timeout(CONVERGE_MS);
    await eventually(
      async () => {
        const companion = await management.ops.cluster(TENANT, NAME);
        expect(isReady(companion), JSON.stringify(companion.status?.conditions)).to.equal(true);
        for (const [arn, tags] of await listed()) expect(tags, arn).to.include({ platform: 'keymaster', team: TENANT });
      },
      { timeoutMs: CONVERGE_MS },
    );
    const { conflicts = [] } = (await management.ops.cluster(TENANT, NAME)).status?.tagging ?? {};
    expect(conflicts.map(({ key, winner, loser }) => [key, winner.layer, winner.value, loser.value])).to.deep.equal([
      ['team', 'ClusterAPI', TENANT, 'platform'],
    ]);
  });

  it('then, while both reconcile again and again, neither writes a tag', async function () {
    this.timeout(CONVERGE_MS);
    const before = await recording();
    const rounds = () => capa!.log().split('"Reconciling AWSCluster"').length - 1;
    // Three ownership filters, three GetResources queries, per discovery of the cluster's resources.
    const discoveries = async () =>
      (await controller.metric('keymaster_aws_calls_total', { operation: 'GetResources' })) / 3;
    const [capaRounds, keymasterRounds] = [rounds(), await discoveries()];
    // Each of CAPA's reconciles ensures the tags of every resource of its network; each of Keymaster's
    // resyncs discovers the cluster's resources and plans their tags.
    await eventually(
      async () => {
        expect(rounds(), "CAPA's reconciles").to.be.at.least(capaRounds + 3);
        expect(await discoveries(), "Keymaster's resyncs").to.be.at.least(keymasterRounds + 3);
      },
      { timeoutMs: CONVERGE_MS },
    );
    const writes = (await recording())
      .slice(before.length)
      .filter(({ action }) => TAG_WRITE_ACTIONS.includes(action))
      .map(({ accessKeyId, action }) => `${accessKeyId === CAPA_KEY_ID ? 'CAPA' : accessKeyId} ${action}`);
    expect(writes).to.deep.equal([]);
    // And both wrote before, so the recording tells them apart.
    const callers = new Set(before.map(({ accessKeyId }) => accessKeyId));
    expect([...callers]).to.include.members([CAPA_KEY_ID, CONTROLLER_KEY.accessKeyId]);
  });
});
