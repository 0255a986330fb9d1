import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import {
  HUB_ROLE,
  MANAGEMENT,
  clusterResources,
  controllerUser,
  hubRole,
  roleArn,
  tenantRole,
} from './support/aws-world.js';
import { eventually } from './support/eventually.js';
import { inspectApiSetup, untilInspectApiAvailable } from './support/inspect-api.js';
import { condition } from './support/kube.js';
import { kubectlBinary } from './support/kubectl.js';
import {
  accountBinding,
  awsCluster,
  controllerIdentity,
  externalIDSecret,
  namespace,
  roleIdentity,
  roleRef,
  tagPolicy,
} from './support/objects.js';
import { startTenancy, stopTenancies, type Tenancy } from './support/tenancy.js';
import { keymasterAsUser, pluginFolder, runAsUser } from './support/tenant-shell.js';

const ACCOUNT_A = '222222222222';
const REGION = 'us-west-2';
const TENANT_LABEL = 'keymaster.dev/tenant';
const EXTERNAL_ID_A = 'inspect-api-tenant-a-5d2f';

/**
 * `keymaster plan` and `explain` (and `kubectl keymaster`) asked of the running controller through the
 * API server (its inspect API, deploy/webhooks/inspect-api.yaml), by tenants under the tenant RBAC of
 * docs/security.md, with no AWS credentials and no AWS endpoint: a tenant gets its own cluster's plan
 * against AWS, as ops would, and nothing of another tenant's.
 */
describe('keymaster plan and explain, asked of the running controller by tenants', function () {
  let tenancy: Tenancy;
  let dir: string;
  const envs = new Map<string, NodeJS.ProcessEnv>();
  const keymaster = (tenant: string, ...args: string[]) => keymasterAsUser(args, envs.get(tenant)!);

  before(async function () {
    dir = await mkdtemp(join(tmpdir(), 'keymaster-e2e-inspect-api-'));
    const inspectApi = await inspectApiSetup(dir);
    tenancy = await startTenancy({
      world: {
        accounts: [
          { id: MANAGEMENT, users: [controllerUser()], roles: [hubRole()] },
          {
            id: ACCOUNT_A,
            roles: [tenantRole('tenant-a-admin', HUB_ROLE, EXTERNAL_ID_A)],
            resources: clusterResources(ACCOUNT_A, REGION, 'a-prod', 2),
          },
        ],
      },
      tenants: [{ name: 'tenant-a' }, { name: 'tenant-b' }],
      objects: [
        ...['tenant-a', 'tenant-b'].map((tenant) => namespace(tenant, { [TENANT_LABEL]: tenant })),
        controllerIdentity({ list: ['tenant-a', 'tenant-b'] }),
        roleIdentity('keymaster-hub', { roleARN: HUB_ROLE, allowedNamespaces: { list: ['tenant-a'] } }),
        externalIDSecret('tenant-a-external-id', EXTERNAL_ID_A),
        roleIdentity('tenant-a', {
          roleARN: roleArn(ACCOUNT_A, 'tenant-a-admin'),
          externalIDSecretRef: { name: 'tenant-a-external-id', key: 'externalID' },
          sourceIdentityRef: roleRef('keymaster-hub'),
          allowedNamespaces: { list: ['tenant-a'] },
          resourceTags: [{ key: 'tenant', value: 'a', overridePolicy: 'Deny' }],
        }),
        accountBinding(ACCOUNT_A, ['tenant-a']),
        tagPolicy([{ key: 'platform', value: 'keymaster' }]),
        ...(inspectApi.objects as never[]),
      ],
      args: inspectApi.args,
      syncPeriod: '2s',
    });
    await untilInspectApiAvailable(tenancy.management.dir, tenancy.management.opsKubeConfig());
    // The plugin and the API server's kubectl, on a PATH of their own.
    const bin = await pluginFolder(dir, kubectlBinary());
    for (const tenant of ['tenant-a', 'tenant-b']) {
      const kubeconfig = join(dir, `${tenant}.kubeconfig`);
      await writeFile(kubeconfig, tenancy.management.tenantKubeConfig(tenant), { mode: 0o600 });
      envs.set(tenant, {
        PATH: `${bin}:${process.env['PATH'] ?? '/usr/bin:/bin'}`,
        HOME: dir,
        KUBECONFIG: kubeconfig,
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      });
    }
    await tenancy.tenant('tenant-a').kube.create(
      awsCluster('tenant-a', 'a-prod', {
        region: REGION,
        identityRef: roleRef('tenant-a'),
        additionalTags: { team: 'a' },
      }),
    );
    await tenancy.tenant('tenant-b').kube.create(awsCluster('tenant-b', 'b-prod', { region: REGION }));
    await eventually(async () =>
      expect(condition(await tenancy.ops.cluster('tenant-a', 'a-prod'), 'Ready')?.status).to.equal('True'),
    );
  });

  after(async () => {
    await stopTenancies();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("gets its own cluster's plan against AWS, made by the controller with its cached session, with no AWS credentials", async function () {
    const assumed = tenancy.aws.count('sts:AssumeRole');
    await tenancy.tenant('tenant-a').kube.patch(
      {
        apiVersion: 'infrastructure.keymaster.dev/v1beta1',
        kind: 'AWSCluster',
        metadata: { namespace: 'tenant-a', name: 'a-prod' },
      },
      { spec: { tagging: { dryRun: true }, additionalTags: { team: 'a', stage: 'prod' } } },
    );
    const { code, stdout, stderr } = await keymaster('tenant-a', 'plan', 'tenant-a/a-prod');
    expect(code, stderr).to.equal(0);
    expect(stderr).to.equal('');
    expect(stdout).to.match(new RegExp(`^tenant-a/a-prod: account ${ACCOUNT_A}, regions ${REGION}$`, 'm'));
    expect(stdout).to.match(new RegExp(`^ {2}as arn:aws:sts::${ACCOUNT_A}:assumed-role/tenant-a-admin/`, 'm'));
    // The new key, planned against the resources AWS holds: the plan a platform engineer would get.
    expect(stdout).to.match(/stage/);
    expect(stdout).to.match(/nothing was written/);
    expect(tenancy.aws.count('sts:AssumeRole'), 'AssumeRole calls').to.equal(assumed);
  });

  it('gets the same as JSON through the kubectl plugin, Planned', async function () {
    const { code, stdout, stderr } = await runAsUser(
      'kubectl',
      ['keymaster', 'plan', '-n', 'tenant-a', '-o', 'json'],
      envs.get('tenant-a')!,
    );
    expect(code, stderr).to.equal(0);
    const [report] = (JSON.parse(stdout) as { clusters: { cluster: string; outcome: string; accountId: string }[] })
      .clusters;
    expect(report).to.include({ cluster: 'tenant-a/a-prod', outcome: 'Planned', accountId: ACCOUNT_A });
  });

  it('gets its cluster explained by the controller: every link checked, the principal, and its events read as itself', async function () {
    const { code, stdout, stderr } = await keymaster('tenant-a', 'explain', 'tenant-a/a-prod');
    expect(code, stderr).to.equal(0);
    expect(stdout).to.match(/^Identity chain: 3 link\(s\)/m);
    expect(stdout).to.not.include('not checked here');
    expect(stdout).to.include(`arn:aws:sts::${ACCOUNT_A}:assumed-role/tenant-a-admin/`);
    expect(stdout).to.not.match(/^Not checked/m);
  });

  it("is refused another tenant's cluster and every namespace's: one line and the fix, exit 2, nothing planned", async function () {
    for (const args of [
      ['plan', 'tenant-a/a-prod'],
      ['plan', '-A'],
      ['explain', 'a-prod', '-n', 'tenant-a'],
    ]) {
      const { code, stdout, stderr } = await keymaster('tenant-b', ...args);
      expect(code, stderr).to.equal(2);
      expect(stdout).to.equal('');
      expect(stderr).to.match(
        /^keymaster: cannot .*: .* is forbidden: User "tenant-b-dev" cannot (get|list) resource "awscluster(plans|explanations)" in API group "inspect.keymaster.dev"/,
      );
      expect(stderr).to.match(/^hint: That takes (get|list) awscluster(plans|explanations)\.inspect\.keymaster\.dev /m);
    }
  });
});
