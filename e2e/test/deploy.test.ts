import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { startRbacApiServer, type ApiServer } from './support/api-server.js';
import { REPO_ROOT } from './support/controller-process.js';
import { kubectlBinary, kubectlName } from './support/kubectl.js';
import { manifests } from './support/rbac-manifests.js';

const OPS = { token: 'ops-token', user: 'ops', uid: 'ops', groups: ['system:masters'] };
const run = promisify(execFile);

/** What `kubectl apply` printed for each object: `kind/name` -> created, configured or unchanged. */
const outcomes = (stdout: string) =>
  Object.fromEntries(
    stdout
      .trim()
      .split('\n')
      .map((line) => line.split(' ') as [string, string]),
  );

/**
 * The install of docs/operations.md, word for word: `kubectl apply -k deploy`, then the examples,
 * on an API server with nothing of Keymaster's yet: both apply as they are, on either backend, and
 * again.
 */
describe('deploy/ and deploy/examples apply with kubectl, unchanged', function () {
  let dir: string;
  let server: ApiServer | undefined;
  let kubeconfig: string;

  const kubectl = async (...args: string[]): Promise<string> => {
    // kubectl's own HOME: its discovery cache belongs to this server only.
    const { stdout } = await run(kubectlBinary(), args, {
      env: { ...process.env, KUBECONFIG: kubeconfig, HOME: dir },
    });
    return stdout;
  };

  before(async function () {
    dir = await mkdtemp(join(tmpdir(), 'keymaster-e2e-deploy-'));
    server = await startRbacApiServer(dir, [OPS], { crds: false });
    kubeconfig = join(dir, 'kubeconfig');
    await server.writeKubeConfig(kubeconfig, { token: OPS.token });
  });
  after(async () => {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('kubectl apply -k deploy creates every object of the kustomization', async () => {
    const objects = await Promise.all(
      ['deploy/crds', 'deploy/rbac', 'deploy/manager', 'deploy/policies'].map(manifests),
    );
    const expected = Object.fromEntries(objects.flat().map((object) => [kubectlName(object), 'created']));
    expect(outcomes(await kubectl('apply', '-k', join(REPO_ROOT, 'deploy')))).to.deep.equal(expected);
    const crds = objects[0]!.map(({ metadata }) => `crd/${metadata?.name ?? ''}`);
    await kubectl('wait', '--for=condition=Established', '--timeout=60s', ...crds);
  });

  it('kubectl apply -f deploy/examples creates every example, defaulted by the CRD schemas', async () => {
    const examples = await manifests('deploy/examples');
    const expected = Object.fromEntries(examples.map((object) => [kubectlName(object), 'created']));
    expect(outcomes(await kubectl('apply', '-f', join(REPO_ROOT, 'deploy/examples')))).to.deep.equal(expected);
    const policy = JSON.parse(await kubectl('get', 'awstagpolicy', 'default', '-o', 'json')) as {
      spec: { resourceTags: { key: string; overridePolicy?: string }[] };
    };
    expect(policy.spec.resourceTags.map(({ overridePolicy }) => overridePolicy)).to.include('Allow');
  });

  it('applying both again changes nothing but what the server rewrote: stringData, defaulted list items', async () => {
    const objects = await Promise.all(
      ['deploy/crds', 'deploy/rbac', 'deploy/manager', 'deploy/policies', 'deploy/examples'].map(manifests),
    );
    // kubectl sends again a Secret's stringData (stored as data) and a whole list whose items the
    // CRD defaulted (overridePolicy): the server reports them configured, and stores the same.
    const rewritten = (object: { kind?: string; stringData?: unknown; spec?: { resourceTags?: object[] } }) =>
      object.stringData !== undefined || (object.spec?.resourceTags ?? []).some((tag) => !('overridePolicy' in tag));
    const expected = Object.fromEntries(
      objects.flat().map((object) => [kubectlName(object), rewritten(object) ? 'configured' : 'unchanged']),
    );
    expect(Object.values(expected)).to.include('configured');
    expect({
      ...outcomes(await kubectl('apply', '-k', join(REPO_ROOT, 'deploy'))),
      ...outcomes(await kubectl('apply', '-f', join(REPO_ROOT, 'deploy/examples'))),
    }).to.deep.equal(expected);
  });

  it("the upgrade notes' commands bind credential vending in every namespace that has requests, and only there", async () => {
    // As before this release: requests (tenant-b's example, one in tenant-a), and no RoleBinding.
    await kubectl('delete', 'rolebinding', 'keymaster-credential-vending', '--namespace', 'tenant-b');
    const request = join(dir, 'request.yaml');
    await writeFile(
      request,
      JSON.stringify({
        apiVersion: 'infrastructure.keymaster.dev/v1beta1',
        kind: 'AWSCredentialsRequest',
        metadata: { name: 'billing', namespace: 'tenant-a' },
        spec: {
          identityRef: { kind: 'AWSClusterRoleIdentity', name: 'tenant-b-workloads' },
          statements: [{ effect: 'Allow', actions: ['tag:GetResources'], resources: ['*'] }],
          secretRef: { name: 'billing-aws' },
        },
      }),
    );
    await kubectl('apply', '-f', request);
    const doc = await readFile(join(REPO_ROOT, 'docs/operations.md'), 'utf8');
    const block = /<!-- vending-upgrade[^>]*-->\s*```sh\n([\s\S]*?)```/.exec(doc);
    if (!block) throw new Error('docs/operations.md has no vending-upgrade block');
    const env = { ...process.env, KUBECONFIG: kubeconfig, HOME: dir };
    // Word for word, from the repository's root, twice: a second run changes nothing.
    const upgrade = () => run('bash', ['-euo', 'pipefail', '-c', block[1]!], { cwd: REPO_ROOT, env });
    await upgrade();
    await upgrade();
    const bindings = await kubectl(
      'get',
      'rolebindings',
      '--all-namespaces',
      '--field-selector',
      'metadata.name=keymaster-credential-vending',
      '-o',
      'jsonpath={range .items[*]}{.metadata.namespace} {.roleRef.kind}/{.roleRef.name} {.subjects[0].namespace}/{.subjects[0].name}{"\\n"}{end}',
    );
    expect(bindings.trim().split('\n')).to.deep.equal([
      'tenant-a ClusterRole/keymaster-credential-vending keymaster-system/keymaster',
      'tenant-b ClusterRole/keymaster-credential-vending keymaster-system/keymaster',
    ]);
  });

  it("docs/operations.md's check of the namespaces over the per-namespace bounds lists those over them", async () => {
    const doc = await readFile(join(REPO_ROOT, 'docs/operations.md'), 'utf8');
    const script = /<!-- namespace-bound-check[^>]*-->\s*```sh\n([\s\S]*?)```/.exec(doc)?.[1];
    if (!script) expect.fail('docs/operations.md has no namespace-bound-check block');
    // The examples hold 2 AWSClusters in tenant-b and 1 in tenant-c, 1 request in tenant-b: bounds of 1
    // and 0 list tenant-b's (and requests an earlier test made), never tenant-c's clusters.
    const lowered = script
      .replace('awsclusters:500', 'awsclusters:1')
      .replace('awscredentialsrequests:100', 'awscredentialsrequests:0');
    expect(lowered).to.not.equal(script);
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', lowered], {
      env: { ...process.env, KUBECONFIG: kubeconfig, HOME: dir },
    });
    const lines = stdout.trim().split('\n');
    expect(lines).to.include.members(['tenant-b awsclusters 2', 'tenant-b awscredentialsrequests 1']);
    expect(lines.filter((line) => line.startsWith('tenant-c '))).to.deep.equal([]);
  });
});
