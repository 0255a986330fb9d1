import { loadAllYaml } from '@kubernetes/client-node';
import { expect } from 'chai';
import type { AWSAccountBinding, AWSCluster } from '@keymaster/api';
import { HUB_ROLE, MANAGEMENT, controllerUser, hubRole, roleArn, tenantRole } from './support/aws-world.js';
import { documentedCommands, runDocumented } from './support/documented-commands.js';
import { eventually } from './support/eventually.js';
import { condition } from './support/kube.js';
import { awsCluster, controllerIdentity, namespace, roleIdentity, roleRef } from './support/objects.js';
import { startTenancy, stopTenancies, type Tenancy } from './support/tenancy.js';

const ACCOUNT = { a: '222222222222', b: '333333333333' };
const TENANT_LABEL = 'keymaster.dev/tenant';
const TENANTS = ['tenant-a', 'tenant-b', 'tenant-c'];
/** Tenant C acts in tenant A's account: shared on purpose. */
const ACCOUNT_OF: Record<string, string> = { 'tenant-a': ACCOUNT.a, 'tenant-b': ACCOUNT.b, 'tenant-c': ACCOUNT.a };

/** A tenant's role identity, labelled with its tenant, allowing its namespace. */
function tenantIdentity(tenant: string) {
  const identity = roleIdentity(tenant, {
    roleARN: roleArn(ACCOUNT_OF[tenant]!, `${tenant}-admin`),
    sourceIdentityRef: roleRef('keymaster-hub'),
    allowedNamespaces: { list: [tenant] },
  });
  return { ...identity, metadata: { ...identity.metadata, labels: { [TENANT_LABEL]: tenant } } };
}

const reasonOf = (cluster: AWSCluster) => condition(cluster, 'Ready')?.reason;

describe('upgrading to accounts bound by the platform: the bindings docs/operations.md writes, as ops', function () {
  let tenancy: Tenancy;
  after(stopTenancies);

  before(async function () {
    tenancy = await startTenancy({
      world: {
        accounts: [
          { id: MANAGEMENT, users: [controllerUser()], roles: [hubRole()] },
          { id: ACCOUNT.a, roles: [tenantRole('tenant-a-admin', HUB_ROLE), tenantRole('tenant-c-admin', HUB_ROLE)] },
          { id: ACCOUNT.b, roles: [tenantRole('tenant-b-admin', HUB_ROLE)] },
        ],
      },
      tenants: TENANTS.map((name) => ({ name })),
      objects: [
        ...TENANTS.map((tenant) => namespace(tenant, { [TENANT_LABEL]: tenant })),
        controllerIdentity({ list: TENANTS }),
        roleIdentity('keymaster-hub', { roleARN: HUB_ROLE, allowedNamespaces: { list: TENANTS } }),
        ...TENANTS.map(tenantIdentity),
      ],
      syncPeriod: '2s',
    });
    for (const tenant of TENANTS)
      await tenancy
        .tenant(tenant)
        .kube.create(awsCluster(tenant, `${tenant}-prod`, { region: 'us-west-2', identityRef: roleRef(tenant) }));
  });

  it('binds each account to the tenants whose labelled identities act in it, and the refused clusters act again', async function () {
    // As the upgraded controller leaves them before any binding exists: refused, each with its account.
    for (const tenant of TENANTS)
      await eventually(async () =>
        expect(reasonOf(await tenancy.ops.cluster(tenant, `${tenant}-prod`)), tenant).to.equal('AccountNotBound'),
      );
    const commands = await documentedCommands('docs/operations.md', 'account-bindings');
    const result = await runDocumented(
      `${commands}\ncat account-bindings.yaml\nkubectl apply -f account-bindings.yaml >&2`,
      tenancy.management.opsKubeConfig(),
    );
    expect(result.code, result.stderr).to.equal(0);
    const bindings = (loadAllYaml(result.stdout) as AWSAccountBinding[]).filter(Boolean);
    expect(Object.fromEntries(bindings.map(({ metadata, spec }) => [metadata.name, spec.tenants]))).to.deep.equal({
      [ACCOUNT.a]: ['tenant-a', 'tenant-c'],
      [ACCOUNT.b]: ['tenant-b'],
    });
    for (const tenant of TENANTS)
      await eventually(async () =>
        expect(reasonOf(await tenancy.ops.cluster(tenant, `${tenant}-prod`)), tenant).to.equal('Ready'),
      );
  });
});
