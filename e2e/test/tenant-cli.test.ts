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
import { condition } from './support/kube.js';
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
import { expectClearFailure, keymasterAsUser, pluginFolder, runAsUser } from './support/tenant-shell.js';

const ACCOUNT_A = '222222222222';
const REGION = 'us-west-2';
const TENANT_LABEL = 'keymaster.dev/tenant';
const EXTERNAL_ID_A = 'tenant-cli-tenant-a-7c1e';

/**
 * Tenants run `keymaster plan` / `explain` (and `kubectl keymaster`) on their own clusters, under the
 * tenant RBAC of docs/security.md on an API server that enforces it: what they may read is shown, what
 * they may not is listed with why; another tenant's cluster, a forbidden list, a missing kubeconfig and
 * an unreachable API server each end in one clear line and its fix, exit 2.
 */
describe('keymaster plan and explain as a tenant, under the tenant RBAC of docs/security.md', function () {
  let tenancy: Tenancy;
  let dir: string;
  /** Each tenant's environment: its kubeconfig, the AWS endpoint, and no AWS credentials. */
  const envs = new Map<string, NodeJS.ProcessEnv>();
  // plan and explain on this machine (--local): e2e/test/inspect-api.test.ts asks the controller.
  const keymaster = (tenant: string, command: string, ...args: string[]) =>
    keymasterAsUser([command, ...args, ...(command === 'run' ? [] : ['--local'])], envs.get(tenant)!);

  before(async function () {
    const resources = clusterResources(ACCOUNT_A, REGION, 'a-prod', 2);
    tenancy = await startTenancy({
      world: {
        accounts: [
          { id: MANAGEMENT, users: [controllerUser()], roles: [hubRole()] },
          { id: ACCOUNT_A, roles: [tenantRole('tenant-a-admin', HUB_ROLE, EXTERNAL_ID_A)], resources },
        ],
      },
      // Tenant C reads no identity: the identity viewer is optional.
      tenants: [{ name: 'tenant-a' }, { name: 'tenant-b' }, { name: 'tenant-c', identityViewer: false }],
      objects: [
        ...['tenant-a', 'tenant-b', 'tenant-c'].map((tenant) => namespace(tenant, { [TENANT_LABEL]: tenant })),
        controllerIdentity({ list: ['tenant-a'] }),
        roleIdentity('keymaster-hub', { roleARN: HUB_ROLE, allowedNamespaces: { list: ['tenant-a'] } }),
        externalIDSecret('tenant-a-external-id', EXTERNAL_ID_A),
        {
          ...roleIdentity('tenant-a', {
            roleARN: roleArn(ACCOUNT_A, 'tenant-a-admin'),
            externalIDSecretRef: { name: 'tenant-a-external-id', key: 'externalID' },
            sourceIdentityRef: roleRef('keymaster-hub'),
            allowedNamespaces: { selector: { matchLabels: { [TENANT_LABEL]: 'tenant-a' } } },
            resourceTags: [{ key: 'tenant', value: 'a', overridePolicy: 'Deny' }],
          }),
          metadata: { name: 'tenant-a', labels: { [TENANT_LABEL]: 'tenant-a' } },
        },
        accountBinding(ACCOUNT_A, ['tenant-a']),
        tagPolicy([{ key: 'platform', value: 'keymaster' }]),
      ],
      syncPeriod: '2s',
    });
    dir = await mkdtemp(join(tmpdir(), 'keymaster-e2e-tenant-cli-'));
    // kubectl 1.33 and the plugin, on a PATH of their own.
    const bin = await pluginFolder(dir, process.env['KUBECTL'] ?? 'kubectl.1.33');
    for (const tenant of ['tenant-a', 'tenant-b', 'tenant-c']) {
      const kubeconfig = join(dir, `${tenant}.kubeconfig`);
      await writeFile(kubeconfig, tenancy.management.tenantKubeConfig(tenant), { mode: 0o600 });
      envs.set(tenant, {
        PATH: `${bin}:${process.env['PATH'] ?? '/usr/bin:/bin'}:/usr/lib/google-cloud-sdk/bin`,
        HOME: dir,
        KUBECONFIG: kubeconfig,
        AWS_ENDPOINT_URL: tenancy.aws.emulator.url,
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
    // Tenant C names tenant A's identity, which refuses its namespace.
    await tenancy
      .tenant('tenant-c')
      .kube.create(awsCluster('tenant-c', 'c-prod', { region: REGION, identityRef: roleRef('tenant-a') }));
    await eventually(async () => {
      expect(condition(await tenancy.ops.cluster('tenant-a', 'a-prod'), 'Ready')?.status).to.equal('True');
      expect(condition(await tenancy.ops.cluster('tenant-c', 'c-prod'), 'Ready')?.reason).to.equal(
        'PrincipalUsageUnauthorized',
      );
    });
  });

  after(async () => {
    await stopTenancies();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('plans its own cluster from what it may read: the tags of every layer, the last sync, and what was not checked, and why', async function () {
    tenancy.management.server.requests.reset();
    const { code, stdout, stderr } = await keymaster('tenant-a', 'plan', 'tenant-a/a-prod');
    expect(code, stderr).to.equal(0);
    expect(stderr).to.equal('');
    // Within 100 columns: a wrapped line goes on indented.
    const joined = stdout.replace(/\n {2,}(?!\S+ = )/g, ' ');
    expect(joined).to.match(/^tenant-a\/a-prod: planned from what you may read, not against AWS \(Partial\)/m);
    // The three layers it may read: the cluster's, its identity's (the viewer role), the global policy.
    expect(joined).to.match(/^ {2}team = "a" # Cluster \(AWSCluster tenant-a\/a-prod\)/m);
    expect(joined).to.match(/^ {2}tenant = "a" # Account \(AWSClusterRoleIdentity\/tenant-a\)/m);
    expect(joined).to.match(/^ {2}platform = "keymaster" # Global \(AWSTagPolicy\/default\)/m);
    expect(joined).to.match(/^the controller's last sync \(status, \S+\): 2\/2 resource\(s\) in sync, 0 drifted$/m);
    expect(joined).to.match(
      /^not checked: the tags on AWS \(a plan made with the cluster's own credentials\); so the labels of namespace tenant-a \(what tag policies' namespaceSelectors match\): cannot read Namespace tenant-a \(its labels\): namespaces "tenant-a" is forbidden: User "tenant-a-dev" cannot get resource "namespaces"/m,
    );
    expect(joined).to.include('fix: That takes get namespaces at the cluster scope, which your RBAC does not grant');
    expect(joined).to.include('set spec.tagging.dryRun: true');
    expect(stdout.split('\n').filter((line) => line.length > 100)).to.deep.equal([]);
    // Only reads, and never of a Secret.
    const asked = tenancy.management.server.requests.requests({ user: 'tenant-a-dev' });
    expect(
      [...new Set(asked.map(({ verb }) => verb))].filter((verb) => verb !== 'get' && verb !== 'list'),
    ).to.deep.equal([]);
    expect(asked.filter(({ resource }) => resource === 'secrets')).to.deep.equal([]);
  });

  it('plans as JSON: Partial, with each unchecked read and its RBAC fix', async function () {
    const { code, stdout, stderr } = await keymaster('tenant-a', 'plan', '-n', 'tenant-a', '-o', 'json');
    expect(code, stderr).to.equal(0);
    const [report] = (JSON.parse(stdout) as { clusters: Record<string, unknown>[] }).clusters;
    expect(report).to.deep.include({ cluster: 'tenant-a/a-prod', outcome: 'Partial' });
    const unchecked = report!['unchecked'] as { check: string; code: string; hint: string }[];
    expect(unchecked.map(({ code }) => code)).to.deep.equal(['ERR_KEYMASTER_FORBIDDEN']);
    expect(Object.keys(report!['tags'] as object).sort()).to.deep.equal(['platform', 'team', 'tenant']);
  });

  it('explains its own cluster: the conditions, the chain as the controller checked it, the account from status, what was not checked', async function () {
    const { code, stdout, stderr } = await keymaster('tenant-a', 'explain', 'tenant-a/a-prod');
    expect(code, stderr).to.equal(0);
    expect(stdout).to.match(/^ {2}Ready +True +Ready/m);
    expect(stdout).to.include('Identity chain: 3 link(s), as the controller last checked it, not checked here');
    expect(stdout).to.include('tenant-a/a-prod (namespace tenant-a, labels not read)');
    expect(stdout).to.match(
      /└─ \? AWSClusterRoleIdentity\/tenant-a {2}role arn:aws:iam::222222222222:role\/tenant-a-admin/,
    );
    expect(stdout).to.include('allows namespaces labelled keymaster.dev/tenant=tenant-a');
    expect(stdout).to.include(
      `the controller last resolved account ${ACCOUNT_A} as arn:aws:sts::${ACCOUNT_A}:assumed-role`,
    );
    expect(stdout).to.match(/^ {2}tenant = "a" {2}from AWSClusterRoleIdentity\/tenant-a \(Account, Deny\)$/m);
    expect(stdout).to.match(/^Not checked \(2\): you may not read what they take$/m);
    expect(stdout).to.include(
      "  - the labels of namespace tenant-a (what allowedNamespaces and tag policies' namespaceSelectors match); so the identity chain, link by link, and the account it resolves into: cannot read Namespace tenant-a",
    );
    // Ledgers are the controller's alone: no tenant reads them, its own cluster's neither.
    expect(stdout).to.match(/^ {2}- the cluster's AWSClusterLedger \(what the controller remembers of it\): /m);
  });

  it("explains without the identity viewer: each identity it may not read is named, with the fix, and the controller's verdict leads", async function () {
    const { code, stdout, stderr } = await keymaster('tenant-c', 'explain', 'c-prod', '-n', 'tenant-c');
    expect(code, stderr).to.equal(0);
    expect(stdout).to.match(
      /^ {2}PrincipalUsageAllowed +False +PrincipalUsageUnauthorized +namespace "tenant-c" may not use/m,
    );
    expect(stdout).to.match(
      /^ {2}- AWSClusterRoleIdentity\/tenant-a: its tag layer and whom it allows: cannot read AWSClusterRoleIdentity\/tenant-a: .*forbidden: User "tenant-c-dev" cannot get resource "awsclusterroleidentities"/m,
    );
    expect(stdout).to.include(
      'fix: That takes get awsclusterroleidentities.infrastructure.keymaster.dev at the cluster scope, which your RBAC does not grant',
    );
    expect(stdout).to.match(
      /^ {2}1\. PrincipalUsageAllowed \(PrincipalUsageUnauthorized\): namespace "tenant-c" may not use/m,
    );
  });

  it('`kubectl keymaster why` explains its own cluster the same, as the plugin', async function () {
    const { code, stdout, stderr } = await runAsUser(
      'kubectl',
      ['keymaster', 'why', 'a-prod', '-n', 'tenant-a', '--local'],
      envs.get('tenant-a')!,
    );
    expect(code, stderr).to.equal(0);
    expect(stdout).to.include('Identity chain: 3 link(s), as the controller last checked it, not checked here');
  });

  it("refuses another tenant's cluster with one clear line naming the right it lacks, exit 2", async function () {
    for (const command of ['plan', 'explain'])
      expectClearFailure(
        await keymaster('tenant-a', command, 'tenant-b/b-prod'),
        /^keymaster: cannot read AWSCluster tenant-b\/b-prod: awsclusters\.infrastructure\.keymaster\.dev "b-prod" is forbidden: User "tenant-a-dev" cannot get resource "awsclusters"/,
        /^hint: That takes get awsclusters\.infrastructure\.keymaster\.dev in namespace tenant-b, which your RBAC does not grant: ask the platform team for it, or name a cluster of a namespace you may read\. `kubectl auth can-i get awsclusters\.infrastructure\.keymaster\.dev -n tenant-b` says what you may\.$/,
      );
  });

  it('a forbidden list, a missing kubeconfig and an unreachable API server: one clear line each, exit 2', async function () {
    expectClearFailure(
      await keymaster('tenant-a', 'plan', '-A'),
      /^keymaster: cannot list the AWSClusters of every namespace \(-A\): awsclusters\.infrastructure\.keymaster\.dev is forbidden: User "tenant-a-dev" cannot list resource "awsclusters"/,
      /^hint: That takes list awsclusters\.infrastructure\.keymaster\.dev in every namespace, which your RBAC does not grant: ask the platform team for it, or give -n NAMESPACE, a namespace you may read\./,
    );
    const missing = join(dir, 'no-such-kubeconfig');
    expectClearFailure(
      await keymaster('tenant-a', 'plan', 'tenant-a/a-prod', '--kubeconfig', missing),
      new RegExp(`^keymaster: --kubeconfig=${missing}: the file does not exist$`),
      /^hint: Pass another --kubeconfig: it must name a kubeconfig file you may read\.$/,
    );
    const unreachable = join(dir, 'unreachable.kubeconfig');
    await writeFile(
      unreachable,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'gone', cluster: { server: 'https://127.0.0.1:1', 'insecure-skip-tls-verify': true } }],
        contexts: [{ name: 'gone', context: { cluster: 'gone', user: 'gone' } }],
        users: [{ name: 'gone', user: { token: 'x' } }],
        'current-context': 'gone',
      }),
    );
    expectClearFailure(
      await keymaster('tenant-a', 'explain', 'tenant-a/a-prod', '--kubeconfig', unreachable),
      /^keymaster: the API server https:\/\/127\.0\.0\.1:1 \(kubeconfig context "gone"\) cannot be reached: .*ECONNREFUSED/,
      /^hint: Check that the cluster runs and that this host can reach that address/,
    );
  });

  it("`keymaster run` with a tenant's rights stops at once, naming the list RBAC refused, exit 2", async function () {
    const { code, stderr } = await keymaster(
      'tenant-a',
      'run',
      '--metrics-bind-address=0',
      '--health-probe-bind-address=0',
    );
    const said = stderr.split('\n').filter((line) => line !== '' && !line.startsWith('{'));
    expect(stderr, 'a stack trace').to.not.match(/^\s+at /m);
    expect(said[0]).to.match(
      /^keymaster: cannot list and watch \S+: .*is forbidden: User "tenant-a-dev" cannot list resource/,
    );
    expect(said[1]).to.match(/^hint: .*keymaster run needs the rights of deploy\/rbac/);
    expect(code).to.equal(2);
  });
});
