import { spawn } from 'node:child_process';
import { mkdir, readFile, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CustomObjectsApi, loadYaml } from '@kubernetes/client-node';
import { GROUP, VERSION, type AWSCluster } from '@keymaster/api';
import { expect } from 'chai';
import type { Emulators } from '@keymaster/testenv';
import type { ClusterPlanReport } from '../../src/inspect/cluster-plan.js';
import type { Explanation } from '../../src/inspect/explain.js';
import { startExamples, type ExamplesPlatform } from '../integration/examples.js';
import { eventually } from '../integration/harness.js';
import { kubectl133 } from './kubectl.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const SOURCES = join(ROOT, 'packages/reconciler/src/cli');

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<Finished> {
  const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

const clusterKey = (cluster: AWSCluster) => `${cluster.metadata.namespace}/${cluster.metadata.name}`;
const readyOf = (cluster: AWSCluster) =>
  cluster.status?.observedGeneration === cluster.metadata.generation
    ? cluster.status?.conditions?.find(({ type }) => type === 'Ready')?.status
    : undefined;

/** What AWS may see from `plan` and `explain`: sessions and tag reads, never a write. */
const READS = ['sts:AssumeRole', 'sts:GetCallerIdentity', 'tag:GetResources'];

describe('keymaster plan and explain, and the kubectl plugin, against both emulators', function () {
  this.timeout(120_000);
  let platform: ExamplesPlatform;
  let dir: string;
  let emulators: Emulators;
  let env: NodeJS.ProcessEnv;
  let kubeconfig: string;
  /** `keymaster <args>` as `pnpm keymaster` runs it (tsx on the sources), as the platform engineer. */
  const keymasterAsked = (...args: string[]) =>
    run(
      process.execPath,
      ['--import', 'tsx', '--conditions=@keymaster/source', join(SOURCES, 'main.ts'), ...args],
      env,
    );
  /** The same, working on this machine (--local): the emulators serve no inspect API. */
  const keymaster = (...args: string[]) => keymasterAsked(...args, '--local');
  /** AWS's call log since the last `readOnly`: the actions called. */
  const awsActions = () => Object.keys(emulators.aws.calls.summary().byAction).sort();
  /** Runs `inspect`, then asserts that AWS saw only reads and the API server only gets and lists. */
  async function readOnly<T>(inspect: () => Promise<T>): Promise<T> {
    emulators.aws.calls.reset();
    emulators.kube.stats.reset();
    const result = await inspect();
    expect(
      awsActions().filter((action) => !READS.includes(action)),
      "AWS's call log: writes",
    ).to.deep.equal([]);
    const verbs = new Set(emulators.kube.stats.requests().map(({ verb }) => verb));
    expect(verbs.size, 'the API server was asked').to.be.greaterThan(0);
    expect(
      [...verbs].filter((verb) => verb !== 'get' && verb !== 'list'),
      'API server writes',
    ).to.deep.equal([]);
    return result;
  }

  before(async () => {
    platform = await startExamples('inspect');
    ({ dir, kubeconfig, emulators } = platform);
    // The controller's credentials from the environment, as for `keymaster run`; no other AWS setting.
    env = {
      PATH: process.env['PATH'],
      HOME: dir,
      KUBECONFIG: kubeconfig,
      AWS_ENDPOINT_URL: emulators.aws.url,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: emulators.controller.accessKeyId,
      AWS_SECRET_ACCESS_KEY: emulators.controller.secretAccessKey,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    };
  });
  after(async () => {
    await platform.stop();
  });

  describe('before the controller has run', () => {
    it('plans every cluster (-A): the tags to add from each layer, with conflicts; the refused one gets no plan', async () => {
      const { code, stdout, stderr } = await readOnly(() => keymaster('plan', '-A'));
      expect(code, stderr).to.equal(1);
      expect(awsActions()).to.deep.equal(READS);
      const lines = stdout.split('\n');
      expect(lines.filter((line) => line.length > 100)).to.deep.equal([]);
      // docs/reconciler.md's sample is this cluster's block, as printed.
      const docs = await readFile(join(ROOT, 'docs/reconciler.md'), 'utf8');
      const sample = /\$ npx pnpm -s keymaster plan tenant-b\/analytics-dev\n(tags: .*)\n\n([^`]+)```/.exec(docs);
      expect(sample, "docs/reconciler.md's sample").to.not.equal(null);
      expect(lines[0]).to.equal(sample![1]);
      expect(stdout).to.include(`\n\n${sample![2]}\n`);
      expect(stdout).to.include(
        'tenant-b/analytics-dev: account 333333333333, regions eu-west-1\n  as arn:aws:sts::333333333333:assumed-role/tenant-b-admin/keymaster-tenant-b\n',
      );
      // The instance drifted on "team"; its security group and subnet get the same tags: one group.
      expect(stdout).to.match(
        /^ {4}~ team: "someone-else" -> "analytics"\n {8}# not managed before; from Cluster \(AWSCluster tenant-b\/analytics-dev\)$/m,
      );
      expect(stdout).to.match(
        /^ {2}2 resources, the same change:\n {4}arn:aws:ec2:eu-west-1:333333333333: security-group\//m,
      );
      // Tenant B's role enforces tenant=tenant-b over the cluster's own "analytics".
      expect(stdout).to.match(
        /^ {4}\+ tenant = "tenant-b"\n {8}# from Account \(AWSClusterRoleIdentity\/tenant-b\); Deny overrules Cluster "analytics"\n {10}\(AWSCluster tenant-b\/analytics-dev\)$/m,
      );
      expect(stdout).to.match(
        /^tenant-c\/reporting-prod: no plan \(Refused\): namespace "tenant-c" may not use\n {2}AWSClusterRoleIdentity\/tenant-b$/m,
      );
      expect(stdout).to.include('`keymaster explain tenant-c/reporting-prod` shows every link of the chain.');
      expect(stdout.match(/^\S+\/\S+: /gm)).to.have.length(4);
      expect(stdout.replace(/\n {2}/g, ' ')).to.match(/^\d+ resource\(s\): \d+ to change .*; nothing was written$/m);
    });

    it('-o wide: a row per key of each resource; -o name: the clusters, as kubectl names them', async () => {
      const wide = await readOnly(() => keymaster('plan', 'tenant-b/analytics-dev', '-o', 'wide'));
      expect(wide.code, wide.stderr).to.equal(0);
      expect(wide.stdout).to.match(/^RESOURCE {3,}KEY {3,}CHANGE {3,}FROM {3,}TO {3,}LAYER {3,}CONFLICT$/m);
      expect(wide.stdout).to.match(
        /^arn:aws:ec2:eu-west-1:333333333333:\S+ +tenant +\S+.* +"tenant-b" +Account \(AWSClusterRoleIdentity\/tenant-b\) +Deny overrules Cluster "analytics" \(AWSCluster tenant-b\/analytics-dev\)$/m,
      );
      const names = await readOnly(() => keymaster('plan', '-n', 'tenant-b', '-o', 'name'));
      expect(names.code, names.stderr).to.equal(0);
      expect(names.stdout).to.equal(
        'awscluster.infrastructure.keymaster.dev/analytics-dev\nawscluster.infrastructure.keymaster.dev/analytics-prod\n',
      );
    });

    it('without the inspect API installed, plans on this machine and says so on stderr, the plan alone on stdout', async () => {
      const asked = await readOnly(() => keymasterAsked('plan', '-n', 'tenant-b', '-o', 'json'));
      expect(asked.code, asked.stderr).to.equal(0);
      expect(asked.stderr).to.equal(
        'keymaster: the API server serves no inspect.keymaster.dev (APIService v1alpha1.inspect.keymaster.dev): working on this machine, as with --local\n',
      );
      // Asking and then working here check the API server once (the start-up read of /apis).
      expect(emulators.kube.stats.total({ resource: '/apis' })).to.equal(1);
      const local = await keymaster('plan', '-n', 'tenant-b', '-o', 'json');
      const outcomes = (stdout: string) =>
        (JSON.parse(stdout) as { clusters: ClusterPlanReport[] }).clusters.map(
          ({ cluster, outcome }) => `${cluster} ${outcome}`,
        );
      expect(outcomes(asked.stdout)).to.deep.equal(outcomes(local.stdout)).and.to.have.length(2);
    });

    it('plans a namespace (-n) and one cluster, as JSON and YAML that parse to the same plan', async () => {
      const namespace = await readOnly(() => keymaster('plan', '-n', 'tenant-b', '-o', 'json'));
      expect(namespace.code, namespace.stderr).to.equal(0);
      const plans = (JSON.parse(namespace.stdout) as { clusters: ClusterPlanReport[] }).clusters;
      expect(plans.map(({ cluster, outcome }) => `${cluster} ${outcome}`)).to.deep.equal([
        'tenant-b/analytics-dev Planned',
        'tenant-b/analytics-prod Planned',
      ]);
      const prod = plans[1]!;
      expect(prod.regions).to.deep.equal(['eu-west-1', 'eu-central-1']);
      expect(prod.changes!.length).to.be.greaterThan(0);
      expect(prod.summary!.tagsToAdd + prod.summary!.tagsToUpdate).to.be.greaterThan(0);
      expect(prod.changes!.every(({ resource }) => resource.includes(':333333333333:'))).to.equal(true);

      const single = await readOnly(() => keymaster('plan', 'tenant-b/analytics-prod', '-o', 'yaml'));
      expect(single.code, single.stderr).to.equal(0);
      expect(loadYaml(single.stdout)).to.deep.equal({ clusters: [prod] });
    });

    it('refuses a cluster that does not exist with exit 2 and the fix', async () => {
      const missing = await keymaster('plan', 'tenant-b/nope');
      expect(missing.code).to.equal(2);
      expect(missing.stderr).to.equal(
        'keymaster: AWSCluster tenant-b/nope not found\nhint: `kubectl get awsclusters.infrastructure.keymaster.dev -n tenant-b` lists the clusters of that namespace.\n',
      );
    });
  });

  describe('once the controller has converged', () => {
    before(async () => {
      const controller = await platform.startController();
      try {
        // Converged: every cluster has a Ready condition on its current spec, True but for the refused one.
        await eventually(async () => {
          const { items } = (await emulators.kubeConfig.makeApiClient(CustomObjectsApi).listClusterCustomObject({
            group: GROUP,
            version: VERSION,
            plural: 'awsclusters',
          })) as { items: AWSCluster[] };
          const ready = items.map((cluster) => `${clusterKey(cluster)} ${readyOf(cluster)}`);
          expect(ready).to.deep.equal([
            'tenant-a/payments-prod True',
            'tenant-b/analytics-dev True',
            'tenant-b/analytics-prod True',
            'tenant-c/reporting-prod False',
          ]);
        }, 60_000);
      } finally {
        // Stopped, so that what AWS and the API server see next is the commands' alone.
        await controller.stop();
      }
    });

    it('plans nothing to change for a converged cluster', async () => {
      const { code, stdout } = await readOnly(() => keymaster('plan', 'tenant-b/analytics-dev'));
      expect(code).to.equal(0);
      expect(stdout).to.not.match(/^ {4}[-+~!=] /m);
      expect(stdout.replace(/\n {2}/g, ' ')).to.match(
        /^(\d+) resource\(s\): 0 to change \(0 tag\(s\) to add, 0 to update, 0 to remove, 0 withheld\), \1 in sync, 0 skipped; nothing was written$/m,
      );
    });

    it('explains the refused cluster: every refusing link of its chain at once, each with its fix', async () => {
      const { code, stdout, stderr } = await readOnly(() => keymaster('explain', 'tenant-c/reporting-prod'));
      expect(code, stderr).to.equal(0);
      expect(stdout).to.include('Identity chain: 3 link(s), 3 with problems');
      expect(stdout).to.match(
        /^tenant-c\/reporting-prod \(namespace tenant-c, labels .*keymaster.dev\/tenant=tenant-c.*\)$/m,
      );
      expect(stdout).to.include(
        [
          '└─ ✗ AWSClusterRoleIdentity/tenant-b  role arn:aws:iam::333333333333:role/tenant-b-admin',
          '   │  allows list tenant-b',
          '   │  ✗ namespace "tenant-c" may not use AWSClusterRoleIdentity/tenant-b',
          '   └─ ✗ AWSClusterRoleIdentity/keymaster-hub  role arn:aws:iam::111111111111:role/keymaster-hub',
          '      │  allows namespaces labelled keymaster.dev/tenant=tenant-b',
          `      │  ✗ namespace "tenant-c" may not use AWSClusterRoleIdentity/keymaster-hub (link 2 of the chain, a source of the cluster's identity)`,
          "      └─ ✗ AWSClusterControllerIdentity/default  the controller's own credentials",
          '            allows list tenant-b',
          `            ✗ namespace "tenant-c" may not use AWSClusterControllerIdentity/default (link 3 of the chain, a source of the cluster's identity)`,
        ].join('\n'),
      );
      expect(stdout).to.include(
        'Account and principal: not resolved: the chain has 3 problem(s) (above), so no AWS call was made',
      );
      expect(awsActions(), 'no AWS call at all').to.deep.equal([]);
      const fixes = stdout.slice(stdout.indexOf('Fix (3):'));
      for (const link of [
        'AWSClusterRoleIdentity/tenant-b',
        'AWSClusterRoleIdentity/keymaster-hub',
        'AWSClusterControllerIdentity/default',
      ])
        expect(fixes).to.include(`${link}: Add "tenant-c" to spec.allowedNamespaces of ${link} (list or selector)`);
      expect(stdout).to.match(/^ {2}Ready +False +PrincipalUsageUnauthorized +namespace "tenant-c" may not use/m);
    }).timeout(60_000);

    it('explains a Ready cluster as JSON: its account and principal, the winning claim of each key, its events', async () => {
      const { code, stdout, stderr } = await readOnly(() =>
        keymaster('explain', 'tenant-b/analytics-dev', '-o', 'json'),
      );
      expect(code, stderr).to.equal(0);
      const explanation = JSON.parse(stdout) as Explanation;
      expect(explanation.principal).to.deep.equal({
        accountId: '333333333333',
        principalArn: 'arn:aws:sts::333333333333:assumed-role/tenant-b-admin/keymaster-tenant-b',
      });
      expect(explanation.chain.map(({ kind, name, problems }) => `${kind}/${name} ${problems.length}`)).to.deep.equal([
        'AWSClusterRoleIdentity/tenant-b 0',
        'AWSClusterRoleIdentity/keymaster-hub 0',
        'AWSClusterControllerIdentity/default 0',
      ]);
      expect(explanation.winners['tenant']).to.deep.include({
        value: 'tenant-b',
        layer: 'Account',
        object: 'AWSClusterRoleIdentity/tenant-b',
        overridePolicy: 'Deny',
      });
      expect(explanation.winners['platform-managed']).to.deep.include({
        layer: 'Global',
        object: 'AWSTagPolicy/default',
      });
      expect(explanation.conflicts.map(({ key }) => key)).to.deep.equal(['tenant']);
      expect(explanation.events.map(({ reason }) => reason)).to.include.members(['TagsApplied', 'TagConflict']);
      expect(explanation.fixes).to.deep.equal([]);
      // What the controller remembers, from the cluster's ledger.
      expect(
        explanation.ledger?.claims.map(({ accountID, region, clusterName }) => [accountID, region, clusterName]),
      ).to.deep.equal([['333333333333', 'eu-west-1', 'analytics-dev']]);
      expect(explanation.ledger?.resourcesRemembered).to.be.greaterThan(0);
    });
  });

  describe('as a kubectl plugin (kubectl 1.33, kubectl-keymaster on PATH)', () => {
    let pluginEnv: NodeJS.ProcessEnv;
    before(async () => {
      // The bin the package installs, on a PATH of its own under kubectl's plugin name.
      const bin = join(dir, 'bin');
      await mkdir(bin);
      await symlink(join(ROOT, 'packages/reconciler/bin/kubectl-keymaster.js'), join(bin, 'kubectl-keymaster'));
      pluginEnv = { ...env, PATH: `${bin}:${process.env['PATH'] ?? ''}` };
    });
    const kubectl = (...args: string[]) => run(kubectl133(), args, pluginEnv);

    it('is found by kubectl plugin list', async () => {
      const { stdout } = await kubectl('plugin', 'list');
      expect(stdout).to.include(join(dir, 'bin', 'kubectl-keymaster'));
    });

    it('`kubectl keymaster plan` plans with the kubeconfig kubectl was given, and writes nothing', async () => {
      const { code, stdout, stderr } = await readOnly(() =>
        run(kubectl133(), ['keymaster', 'plan', 'tenant-a/payments-prod', '--kubeconfig', kubeconfig, '--local'], {
          ...pluginEnv,
          KUBECONFIG: join(dir, 'no-such-kubeconfig'),
        }),
      );
      expect(code, stderr).to.equal(0);
      expect(stdout).to.match(/^tenant-a\/payments-prod: account 222222222222, regions us-west-2\n {2}as /m);
    });

    it('`kubectl keymaster why` explains, every refusing link at once', async () => {
      const { code, stdout, stderr } = await readOnly(() =>
        kubectl('keymaster', 'why', 'reporting-prod', '-n', 'tenant-c', '--local'),
      );
      expect(code, stderr).to.equal(0);
      expect(stdout).to.include('Identity chain: 3 link(s), 3 with problems');
    });

    it('lists its commands, and refuses an unknown one with exit 2', async () => {
      const help = await kubectl('keymaster');
      expect(help.stderr).to.include('kubectl keymaster <command>').and.include('why');
      const unknown = await kubectl('keymaster', 'run');
      expect(unknown.code).to.equal(2);
      expect(unknown.stderr).to.include('unknown command "run"');
    });
  });
});
