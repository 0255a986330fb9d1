import { expect } from 'chai';
import type { AWSClusterLedger } from '@keymaster/api';
import type { ResourceSpec } from '@keymaster/aws-emulator';
import { HUB_ROLE, MANAGEMENT, controllerUser, hubRole, roleArn, tenantRole } from './support/aws-world.js';
import { eventually } from './support/eventually.js';
import { refusal } from './support/isolation-facts.js';
import { condition } from './support/kube.js';
import { awsCluster, controllerIdentity, namespace, roleIdentity, roleRef } from './support/objects.js';
import { startScenario, stopScenarios, type Scenario } from './support/scenario.js';

/** One account both tenants' roles act in: each sees the other's tags. */
const ACCOUNT = '777777777777';
const REGION = 'us-west-2';
/** CAPA's default EKS name of cluster prod in namespace tenant-a, with the case its eksClusterName kept. */
const EKS_A = 'tenant-a_prod-EKS';
/** Tenant B's EKS cluster: a name that differs from A's only in case, so another cluster. */
const EKS_B = 'tenant-a_prod-eks';

const ec2 = (type: string, id: string) => `arn:aws:ec2:${REGION}:${ACCOUNT}:${type}/${id}`;
const elb = (path: string) => `arn:aws:elasticloadbalancing:${REGION}:${ACCOUNT}:${path}`;

/**
 * What EKS and the controllers in an EKS cluster leave tagged: a node (the cloud provider's ownership
 * key), and the AWS Load Balancer Controller's load balancer, target group and backend security group,
 * which carry only `elbv2.k8s.aws/cluster: <name>` and its own bookkeeping.
 */
function eksResources(clusterName: string, suffix: string): ResourceSpec[] {
  const lbc = (resource: string) => ({ 'elbv2.k8s.aws/cluster': clusterName, 'elbv2.k8s.aws/resource': resource });
  return [
    { arn: ec2('instance', `i-0eks${suffix}00000000000`), tags: { [`kubernetes.io/cluster/${clusterName}`]: 'owned' } },
    { arn: elb(`loadbalancer/net/k8s-web-${suffix}/0123456789abcdef`), tags: lbc('LoadBalancer') },
    { arn: elb(`targetgroup/k8s-web-${suffix}/fedcba9876543210`), tags: lbc('web:80') },
    { arn: ec2('security-group', `sg-0eks${suffix}0000000000`), tags: lbc('backend-sg') },
  ];
}

const resourcesA = eksResources(EKS_A, 'a');
const resourcesB = eksResources(EKS_B, 'b');
/** A cluster whose name begins with A's: found by no prefix match. */
const longer = {
  arn: elb('loadbalancer/app/k8s-longer/0011223344556677'),
  tags: { 'elbv2.k8s.aws/cluster': `${EKS_A}-2` },
};

const tenantIdentity = (tenant: 'a' | 'b') =>
  roleIdentity(`tenant-${tenant}`, {
    roleARN: roleArn(ACCOUNT, `tenant-${tenant}-admin`),
    sourceIdentityRef: roleRef('keymaster-hub'),
    allowedNamespaces: { list: [`tenant-${tenant}`] },
    resourceTags: [{ key: 'tenant', value: tenant, overridePolicy: 'Deny' }],
  });

const ledgerOf = (scenario: Scenario, namespace: string) =>
  scenario.kube.read<AWSClusterLedger>({
    apiVersion: 'infrastructure.keymaster.dev/v1beta1',
    kind: 'AWSClusterLedger',
    metadata: { namespace, name: 'prod' },
  });

describe("EKS names: CAPA's <namespace>_<name>, case kept, and the AWS Load Balancer Controller's tags", function () {
  let scenario: Scenario;

  before(async function () {
    scenario = await startScenario({
      world: {
        accounts: [
          { id: MANAGEMENT, users: [controllerUser()], roles: [hubRole()] },
          {
            id: ACCOUNT,
            roles: [tenantRole('tenant-a-admin', HUB_ROLE), tenantRole('tenant-b-admin', HUB_ROLE)],
            resources: [...resourcesA, ...resourcesB, longer],
          },
        ],
      },
      objects: [
        namespace('tenant-a'),
        namespace('tenant-b'),
        controllerIdentity({}),
        roleIdentity('keymaster-hub', { roleARN: HUB_ROLE, allowedNamespaces: { list: ['tenant-a', 'tenant-b'] } }),
        tenantIdentity('a'),
        tenantIdentity('b'),
        awsCluster('tenant-a', 'prod', {
          region: REGION,
          clusterName: EKS_A,
          identityRef: roleRef('tenant-a'),
          additionalTags: { team: 'a' },
        }),
        awsCluster('tenant-b', 'prod', {
          region: REGION,
          clusterName: EKS_B,
          identityRef: roleRef('tenant-b'),
          additionalTags: { team: 'b' },
        }),
      ],
      syncPeriod: '2s',
    });
    await scenario.kube.untilReady(2);
  });

  after(stopScenarios);

  it('governs what kubernetes.io/cluster/<eks name> and elbv2.k8s.aws/cluster=<eks name> mark, each cluster its own, apart in case', async function () {
    const { aws, kube } = scenario;
    await eventually(() => {
      for (const { arn } of resourcesA) expect(aws.tags(arn), arn).to.include({ tenant: 'a', team: 'a' });
      for (const { arn } of resourcesB) expect(aws.tags(arn), arn).to.include({ tenant: 'b', team: 'b' });
    });
    for (const { arn, tags = {} } of [...resourcesA, ...resourcesB]) {
      const live = aws.tags(arn);
      // The marks stay as EKS and the controllers wrote them; no tag of the other cluster came in.
      expect(live, arn).to.include(tags);
      expect(Object.keys(live).sort(), arn).to.deep.equal([...Object.keys(tags), 'team', 'tenant'].sort());
    }
    expect(aws.tags(longer.arn), 'no prefix match').to.deep.equal(longer.tags);
    for (const [namespace, clusterName, count] of [
      ['tenant-a', EKS_A, resourcesA.length],
      ['tenant-b', EKS_B, resourcesB.length],
    ] as const) {
      const cluster = await kube.cluster(namespace, 'prod');
      expect(cluster.status?.tagging?.resourcesDiscovered, namespace).to.equal(count);
      expect(condition(cluster, 'ClusterNameUnique'), namespace).to.include({ status: 'True' });
      // The claim holds the name exactly as written, on the real API server's schema too.
      const ledger = await ledgerOf(scenario, namespace);
      expect(ledger.spec.claims?.map(({ clusterName: claimed }) => claimed)).to.deep.equal([clusterName]);
    }
  });

  it('refuses at admission an EKS name longer than the ownership tag keys leave, naming the field, the key and the fix', async function () {
    const tooLong = `tenant-a_${'p'.repeat(75)}`;
    const refused = await refusal(
      scenario.kube.create(awsCluster('tenant-a', 'long', { region: REGION, clusterName: tooLong })),
    );
    expect(refused?.code).to.equal(422);
    expect(refused?.message).to.include(
      `spec.clusterName: Invalid value: "${tooLong}": clusterName is longer than 83 characters, so the ownership ` +
        "tag key sigs.k8s.io/cluster-api-provider-aws/cluster/<name> would pass AWS's 128-character limit: give the " +
        'cluster a name of at most 83 characters (for EKS, AWSManagedControlPlane.spec.eksClusterName)',
    );
  });
});
