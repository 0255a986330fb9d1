import { expect } from 'chai';
import { installCapa } from '@keymaster/testenv';
import {
  CONTROLLER_USER,
  MANAGEMENT,
  clusterResources,
  controllerUser,
  roleArn,
  tenantRole,
} from './support/aws-world.js';
import { CAPA_NAMESPACE, adoptionRbac, capaIdentity, capaRef } from './support/capa-world.js';
import { eventually } from './support/eventually.js';
import { condition, untilCondition } from './support/kube.js';
import { awsCluster, namespace } from './support/objects.js';
import { startTenancy, stopTenancies, type Tenancy } from './support/tenancy.js';

const ACCOUNT = '999999999999';
const REGION = 'us-west-2';
const ROLE = roleArn(ACCOUNT, 'tenant-a-capa');
const resources = clusterResources(ACCOUNT, REGION, 'payments', 2);

/** CAPA's identities as clusterctl's templates have them: the controller identity allowing `{selector: {}}`. */
const capaIdentities = [
  capaIdentity('AWSClusterControllerIdentity', 'default', { allowedNamespaces: { selector: {} } }),
  capaIdentity('AWSClusterRoleIdentity', 'tenant-a', {
    roleARN: ROLE,
    sourceIdentityRef: { kind: 'AWSClusterControllerIdentity', name: 'default' },
    allowedNamespaces: { list: ['tenant-a'] },
  }),
];

/**
 * CAPA's identities as a source of Keymaster's: a platform with CAPA turns --adopt-cluster-api on,
 * and an AWSCluster a tenant writes names CAPA's role identity. What ops see at each step before it
 * works (CRDs absent, CAPA's `{selector: {}}`) is said on the cluster, with the fix.
 */
describe("CAPA's identities: read, never written, checked link by link", function () {
  let tenancy: Tenancy;
  const payments = () => tenancy.ops.cluster('tenant-a', 'payments');

  before(async function () {
    tenancy = await startTenancy({
      world: {
        accounts: [
          { id: MANAGEMENT, users: [controllerUser()] },
          { id: ACCOUNT, roles: [tenantRole('tenant-a-capa', CONTROLLER_USER)], resources },
        ],
      },
      tenants: [{ name: 'tenant-a' }],
      objects: [namespace('tenant-a'), namespace(CAPA_NAMESPACE)],
      // deploy/cluster-api's RBAC, but CAPA is not installed yet.
      beforeController: async (management) => management.install(await adoptionRbac()),
      args: ['--adopt-cluster-api'],
      syncPeriod: '2s',
    });
    await tenancy.tenant('tenant-a').kube.create(
      awsCluster('tenant-a', 'payments', {
        region: REGION,
        identityRef: capaRef('AWSClusterRoleIdentity', 'tenant-a'),
        additionalTags: { team: 'a' },
      }),
    );
  });

  after(stopTenancies);

  it("without CAPA's CRDs: one log line naming the fix, no crash, and the cluster told CAPA's identities are not read", async function () {
    const refused = await untilCondition(tenancy.ops, 'tenant-a', 'payments', 'PrincipalCredentialRetrieved', {
      status: 'False',
      reason: 'IdentityNotFound',
    });
    expect(condition(refused, 'PrincipalCredentialRetrieved')?.message).to.include(
      "AWSClusterRoleIdentity.infrastructure.cluster.x-k8s.io/tenant-a is one of CAPA's identities, which Keymaster does not read: CAPA's CRDs (infrastructure.cluster.x-k8s.io) were not installed when it started",
    );
    const told = tenancy.controller.logs.filter(({ message }) => message.startsWith("CAPA's identity CRDs"));
    expect(told, 'log lines').to.have.length(1);
    expect(told[0]!.message).to.include('Install CAPA (or its CRDs), then restart Keymaster');
  });

  it("refuses CAPA's {selector: {}} by default, saying which identity, why and the flag", async function () {
    await installCapa(tenancy.management.opsKubeConfig());
    await tenancy.management.install(capaIdentities);
    await tenancy.restart();
    const refused = await untilCondition(tenancy.ops, 'tenant-a', 'payments', 'PrincipalUsageAllowed', {
      status: 'False',
      reason: 'SourcePrincipalUsageUnauthorized',
    });
    const message = condition(refused, 'PrincipalUsageAllowed')!.message;
    expect(message).to.include(
      'namespace "tenant-a" may not use AWSClusterControllerIdentity.infrastructure.cluster.x-k8s.io/default: its allowedNamespaces is {selector: {}}, which CAPA reads as every namespace and Keymaster as none',
    );
    expect(message).to.include('--capa-empty-selector=all-namespaces');
    for (const { arn } of resources) expect(tenancy.aws.tags(arn), arn).to.not.include({ team: 'a' });
  });

  it("follows CAPA with --capa-empty-selector=all-namespaces: the cluster acts through CAPA's role, CAPA's objects untouched", async function () {
    const before = await tenancy.ops.read<{ metadata: { resourceVersion: string } }>(capaIdentities[1]!);
    await tenancy.restart({ args: ['--adopt-cluster-api', '--capa-empty-selector=all-namespaces'] });
    await eventually(() => {
      for (const { arn } of resources) expect(tenancy.aws.tags(arn), arn).to.include({ team: 'a' });
    });
    const cluster = await payments();
    expect(cluster.status?.identityChain?.[0]).to.deep.equal({
      apiGroup: 'infrastructure.cluster.x-k8s.io',
      kind: 'AWSClusterRoleIdentity',
      name: 'tenant-a',
      roleARN: ROLE,
    });
    // Read, never written: no finalizer, no status, the same resourceVersion.
    const after = await tenancy.ops.read<{
      metadata: { resourceVersion: string; finalizers?: string[] };
      status?: unknown;
    }>(capaIdentities[1]!);
    expect(after.metadata.resourceVersion).to.equal(before.metadata.resourceVersion);
    expect(after.metadata.finalizers).to.equal(undefined);
    expect(after.status).to.equal(undefined);
  });
});
