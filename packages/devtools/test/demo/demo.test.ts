import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CustomObjectsApi, KubeConfig, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { expect } from 'chai';
import { isReady, isRefused } from '../../src/demo/clusters.js';
import { runDemo, type DemoOptions } from '../../src/demo/demo.js';
import { GROUP, VERSION } from '@keymaster/api';
import {
  CLUSTER_API_DEMO_WORLD,
  CLUSTER_API_EXAMPLES_DIR,
  DEMO_WORLD,
  EXAMPLES_DIR,
  readManifests,
} from '@keymaster/testenv';

function capture() {
  const text: string[] = [];
  return { out: { write: (chunk: string) => text.push(chunk) }, text: () => text.join('') };
}

const demoOptions = (overrides: Partial<DemoOptions> = {}): DemoOptions => ({
  world: DEMO_WORLD,
  examples: EXAMPLES_DIR,
  once: true,
  timeoutMs: 60_000,
  out: capture().out,
  signal: new AbortController().signal,
  ...overrides,
});

/**
 * The demo left running (a sync every second) until `done` holds of all it printed; `watch` sees that
 * after every write, to act on the running demo.
 */
async function runDemoUntil(done: (printed: string) => boolean, watch: (printed: string) => void = () => undefined) {
  const { out, text } = capture();
  const interrupt = new AbortController();
  const result = await runDemo(
    demoOptions({
      once: false,
      syncPeriod: '1s',
      signal: interrupt.signal,
      out: {
        write: (chunk: string) => {
          out.write(chunk);
          watch(text());
          if (done(text())) interrupt.abort();
        },
      },
    }),
  );
  return { result, text };
}

describe('keymaster demo (in-process)', function () {
  this.timeout(90_000);

  it('converges on deploy/examples: three clusters Ready, tenant-c refused, STS calls and tag writes at their minimum', async () => {
    const { out, text } = capture();
    const result = await runDemo(demoOptions({ out }));
    expect(result.converged, text()).to.equal(true);
    const { rows, calls, stsMinimum, tagChange } = result.summary!;
    expect(rows.filter(isReady).map(({ namespace, name }) => `${namespace}/${name}`)).to.deep.equal([
      'tenant-a/payments-prod',
      'tenant-b/analytics-dev',
      'tenant-b/analytics-prod',
    ]);
    const refused = rows.filter(isRefused);
    expect(refused.map(({ namespace, name }) => `${namespace}/${name}`)).to.deep.equal(['tenant-c/reporting-prod']);
    expect(refused[0]!.ready).to.include({ reason: 'PrincipalUsageUnauthorized' });
    // keymaster-hub and tenant-b are assumed once each for both tenant-b clusters; tenant-a's keys and
    // tenant-b's session are each asked for their account once; tenant-c costs nothing. The
    // credentials request adds its narrowed session of tenant-b-admin (its source, the hub, is shared).
    expect(stsMinimum).to.deep.equal({ assumeRole: 3, getCallerIdentity: 3 });
    expect({ assumeRole: calls.assumeRole, getCallerIdentity: calls.getCallerIdentity }).to.deep.equal(stsMinimum);
    expect(tagChange.resources).to.be.greaterThan(0);
    expect(calls.tagWrites).to.equal(tagChange.minimumCalls);
    expect(text()).to.include('tenant-c/reporting-prod: PrincipalUsageUnauthorized');
    // One request served: its Secret written in tenant-b, shown by names and times, never a value.
    const [request] = result.summary!.requests;
    expect(request).to.include({ namespace: 'tenant-b', name: 'reports', secret: 'tenant-b-reports-aws' });
    expect(request!.ready).to.include({ status: 'True' });
    expect(request!.secretKeys).to.deep.equal(['credentials']);
    expect(text()).to.include('Credentials: 1 of 1 AWSCredentialsRequest served');
    expect(text()).to.match(
      /tenant-b\/reports -> Secret tenant-b-reports-aws \(CredentialsFile: credentials\): a session of arn:aws:sts::333333333333:assumed-role\/tenant-b-admin\/\S+ that may only tag:GetResources, until /,
    );
    expect(text()).not.to.match(/aws_secret_access_key|ASIA[A-Z0-9]{12,}/);
  });

  it("--cluster-api: governs CAPA's clusters with no Keymaster object written per cluster, CAPA's own tags kept", async function () {
    this.timeout(300_000);
    const examples = await readManifests(CLUSTER_API_EXAMPLES_DIR);
    // What a user applies: Cluster API's and CAPA's objects, and Keymaster's policies; no AWSCluster.
    expect(examples.filter(({ kind }) => kind === 'AWSCluster').map(({ apiVersion }) => apiVersion)).to.deep.equal([
      'infrastructure.cluster.x-k8s.io/v1beta2',
      'infrastructure.cluster.x-k8s.io/v1beta2',
    ]);
    const { out, text } = capture();
    const result = await runDemo(
      demoOptions({ out, clusterApi: true, world: CLUSTER_API_DEMO_WORLD, examples: CLUSTER_API_EXAMPLES_DIR }),
    );
    expect(result.converged, text()).to.equal(true);
    const { rows, calls, stsMinimum, tagChange } = result.summary!;
    // Each Cluster's companion, the EKS one under CAPA's default EKS name, through CAPA's identities.
    expect(rows.filter(isReady).map(({ namespace, name }) => `${namespace}/${name}`)).to.deep.equal([
      'tenant-a/payments-prod',
      'tenant-b/analytics-eks',
      'tenant-b/analytics-prod',
    ]);
    expect(
      rows.every(({ inSync }) => inSync !== undefined && inSync > 0),
      text(),
    ).to.equal(true);
    // tenant-a's role, the hub and tenant-b's role: each assumed once.
    expect(stsMinimum).to.deep.equal({ assumeRole: 3, getCallerIdentity: 2 });
    expect({ assumeRole: calls.assumeRole, getCallerIdentity: calls.getCallerIdentity }).to.deep.equal(stsMinimum);
    expect(calls.tagWrites).to.equal(tagChange.minimumCalls);
    // CAPA's team=payments stays on AWS; the policy's team=platform is reported, never written.
    expect(text()).to.include(
      'tenant-a/payments-prod: team="payments" from AWSCluster.infrastructure.cluster.x-k8s.io tenant-a/payments-prod wins over "platform" from AWSTagPolicy/default',
    );
  });

  it('prints the kubeconfig to explore with, and removes its temporary files at the end', async () => {
    const { out, text } = capture();
    await runDemo(demoOptions({ out }));
    const kubeconfig = /kubectl --kubeconfig (\S+) get awsclusters -A/.exec(text())?.[1];
    expect(kubeconfig, text()).to.be.a('string');
    expect(existsSync(kubeconfig!)).to.equal(false);
  });

  it('gives up after the timeout when a cluster can never be Ready, naming it and why', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'keymaster-demo-test-'));
    try {
      // Tenant B's role now trusts another externalID: the examples' chain is refused by AWS.
      const world = (await readFile(DEMO_WORLD, 'utf8')).replace(
        'externalId: 7a5b816a-7743-4377-a382-2d695bf1f172',
        'externalId: 00000000-0000-0000-0000-000000000000',
      );
      await writeFile(join(dir, 'world.yaml'), world);
      const { out, text } = capture();
      // Long enough for the controller's first attempt on a loaded machine (it had not reported in 1.5 s).
      const result = await runDemo(demoOptions({ world: join(dir, 'world.yaml'), out, timeoutMs: 10_000 }));
      expect(result.converged).to.equal(false);
      expect(text()).to.include('Not converged within 10s');
      expect(text()).to.match(/tenant-b\/analytics-prod: AssumeRoleFailed: .*AccessDenied/);
      expect(text()).not.to.match(/^ {2}tenant-c\/reporting-prod:/m);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('stops when interrupted, before converging', async () => {
    const interrupt = new AbortController();
    interrupt.abort();
    const result = await runDemo(demoOptions({ once: false, signal: interrupt.signal }));
    expect(result).to.deep.include({ converged: false });
  });

  it("keeps the controller's log when interrupted, and says where", async () => {
    const { result, text } = await runDemoUntil((printed) => printed.includes('Converged in'));
    expect(result.converged).to.equal(true);
    expect(text()).to.include(result.log!);
    const log = await readFile(result.log!, 'utf8');
    expect(log).to.contain('tenant-b');
    expect(existsSync(join(result.log!, '..', 'kubeconfig'))).to.equal(false);
    await rm(join(result.log!, '..'), { recursive: true, force: true });
  });

  it("once converged, edits a managed tag on AWS itself (AWS SDK, the account's keys), shows it Drifted, then corrected at the next sync", async () => {
    // Status says 0 drifted once set back; the row counts what that sync set back (its event).
    const { result, text } = await runDemoUntil(
      (printed) => printed.includes('Drift:      corrected') && /drifted \d+ \(\d+ set back\)/.test(printed),
    );
    expect(result.converged, text()).to.equal(true);
    const drifted =
      /^Drift: {6}Drifted\. Keymaster sets it back at its next sync \(--sync-period 1s\):\n {2}(\S+): (\S+)="([^"]*)" set to "([^"]*)" on (\S+) by (\S+) \(tag:TagResources\)$/m.exec(
        text(),
      );
    expect(drifted, text()).to.not.equal(null);
    const [, cluster, key, applied, written, arn, by] = drifted!;
    // Tenant A's automation user: the only account of the world with a user allowed to tag.
    expect({ cluster, by }).to.deep.equal({
      cluster: 'tenant-a/payments-prod',
      by: 'arn:aws:iam::222222222222:user/tenant-a-automation',
    });
    expect(written).to.equal(`${applied}-edited-by-hand`);
    expect(arn).to.match(/^arn:aws:ec2:us-west-2:222222222222:/);
    // The footer was drawn again (non-TTY: printed again when it changed) with the correction.
    expect(text()).to.match(
      new RegExp(
        `^Drift: {6}corrected by Keymaster \\d+\\.\\d s after it was made \\(event TagDriftCorrected on tenant-a/payments-prod\\):\\n {2}tenant-a/payments-prod: ${key}=`,
        'm',
      ),
    );
    expect(text()).to.match(/^tenant-a\/payments-prod: .*, drifted 1 \(1 set back\), ready True$/m);
    const log = await readFile(result.log!, 'utf8');
    expect(log).to.match(/tags reconciled.*drifted=1/);
    await rm(join(result.log!, '..'), { recursive: true, force: true });
  });

  it('once converged, explains a refused cluster again when a change refuses it for another reason', async () => {
    const why = /Why tenant-c\/reporting-prod is refused[^\n]*\n(?: {2}.*\n)+/g;
    const trees = (printed: string) => [...printed.matchAll(why)].map(([tree]) => tree);
    let patch: Promise<unknown> | undefined;
    const { result, text } = await runDemoUntil(
      (printed) => trees(printed).some((tree) => tree.includes('AWSClusterStaticIdentity/tenant-a')),
      (printed) => {
        if (patch || trees(printed).length === 0) return;
        // The refused cluster now names tenant-a's static identity, which does not allow tenant-c either.
        const config = new KubeConfig();
        config.loadFromFile(/kubectl --kubeconfig (\S+) get/.exec(printed)![1]!);
        patch = config.makeApiClient(CustomObjectsApi).patchNamespacedCustomObject(
          {
            group: GROUP,
            version: VERSION,
            namespace: 'tenant-c',
            plural: 'awsclusters',
            name: 'reporting-prod',
            body: { spec: { identityRef: { kind: 'AWSClusterStaticIdentity', name: 'tenant-a' } } },
          },
          setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
        );
      },
    );
    await patch;
    expect(result.converged, text()).to.equal(true);
    expect(trees(text())[0], text()).to.include('AWSClusterRoleIdentity/tenant-b');
    expect(trees(text()).at(-1), text()).to.include('AWSClusterStaticIdentity/tenant-a');
    await rm(join(result.log!, '..'), { recursive: true, force: true });
  });
});
