import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { loadYaml, type KubernetesObject } from '@kubernetes/client-node';
import { expect } from 'chai';
import { startRbacApiServer, type ApiServer } from './support/api-server.js';
import { REPO_ROOT } from './support/controller-process.js';
import { kubectlName } from './support/kubectl.js';

const OPS = { token: 'ops-token', user: 'ops', uid: 'ops', groups: ['system:masters'] };
const run = promisify(execFile);

/** API groups whose CRDs come with other products (cert-manager, the Prometheus Operator), not installed here. */
const FOREIGN_GROUPS = ['cert-manager.io', 'monitoring.coreos.com'];
const isForeign = ({ apiVersion = '' }: KubernetesObject) => FOREIGN_GROUPS.includes(apiVersion.split('/')[0]!);

/** Every `kubectl apply -k <path>` written in README.md and docs/, in the order a reader meets them. */
async function documentedPaths(): Promise<string[]> {
  const pages = [
    'README.md',
    ...(await readdir(join(REPO_ROOT, 'docs'), { recursive: true }))
      .filter((name) => name.endsWith('.md'))
      .map((name) => join('docs', name)),
  ];
  const texts = await Promise.all(pages.map((page) => readFile(join(REPO_ROOT, page), 'utf8')));
  return [...new Set(texts.flatMap((text) => [...text.matchAll(/kubectl apply -k\s+([\w./-]+)/g)].map((m) => m[1]!)))];
}

/** The overlays docs/operations.md shows as `# <folder>/kustomization.yaml` YAML blocks, by folder. */
async function documentedOverlays(): Promise<Map<string, string>> {
  const text = await readFile(join(REPO_ROOT, 'docs/operations.md'), 'utf8');
  const blocks = text.matchAll(/( *)```yaml\n\1# ([\w-]+)\/kustomization\.yaml\n([\s\S]*?)\1```/g);
  return new Map(
    [...blocks].map(([, indent, folder, body]) => [folder!, body!.replace(new RegExp(`^${indent!}`, 'gm'), '')]),
  );
}

/**
 * Every Kustomize path README.md and docs/ tell readers to apply, applied as written with the real
 * kubectl, in the docs' order (the pieces one by one first, as on a cluster with nothing of Keymaster's):
 * each object it renders is then on the API server. The docs' overlays are written beside a checkout
 * named `keymaster`, as the docs place them. Objects of products not installed here (cert-manager,
 * the Prometheus Operator) are checked as rendered; the rest of such a path is applied.
 */
describe('every documented Kustomize path applies with kubectl as written', function () {
  let dir: string;
  let server: ApiServer | undefined;
  let kubeconfig: string;
  let overlays: Map<string, string>;

  const kubectl = async (...args: string[]): Promise<string> => {
    // kubectl's own HOME: its discovery cache belongs to this server only. From `dir`: the docs' overlays live there.
    const env = { ...process.env, KUBECONFIG: kubeconfig, HOME: dir };
    const { stdout } = await run('kubectl', args, { cwd: dir, env, maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  };

  /** The folder a documented path names: the repository's own, or an overlay of the docs written in `dir`. */
  const folder = (path: string) => (overlays.has(path) ? join(dir, path) : join(REPO_ROOT, path));

  /** Renders `path`, applies it (its foreign objects apart) and returns what it rendered. */
  const apply = async (path: string): Promise<KubernetesObject[]> => {
    // kubectl kustomize prints one document per object, in the same order; the text is applied as printed.
    const documents = (await kubectl('kustomize', folder(path))).split(/^---\n/m);
    const rendered = documents.map((text) => loadYaml<KubernetesObject>(text));
    const own = rendered.filter((object) => !isForeign(object));
    if (own.length === rendered.length) {
      await kubectl('apply', '-k', folder(path));
    } else {
      const file = join(dir, `${path.replaceAll('/', '_')}.yaml`);
      await writeFile(file, documents.filter((_, index) => !isForeign(rendered[index]!)).join('---\n'));
      await kubectl('apply', '-f', file);
    }
    expect(own, `${path} renders objects this API server knows`).not.to.be.empty;
    for (const object of own) {
      const namespace = object.metadata?.namespace ? ['--namespace', object.metadata.namespace] : [];
      expect((await kubectl('get', kubectlName(object), ...namespace, '-o', 'name')).trim()).to.equal(
        kubectlName(object),
      );
    }
    return rendered;
  };

  before(async function () {
    dir = await mkdtemp(join(tmpdir(), 'keymaster-e2e-install-paths-'));
    server = await startRbacApiServer(dir, [OPS], { crds: false });
    kubeconfig = join(dir, 'kubeconfig');
    await server.writeKubeConfig(kubeconfig, { token: OPS.token });
    await symlink(REPO_ROOT, join(dir, 'keymaster'));
    overlays = await documentedOverlays();
    for (const [name, text] of overlays) {
      await mkdir(join(dir, name));
      await writeFile(join(dir, name, 'kustomization.yaml'), text);
    }
  });
  after(async () => {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const TESTED = [
    'deploy/crds',
    'deploy/rbac',
    'deploy/manager',
    'deploy/policies',
    'deploy',
    'deploy/webhooks',
    'my-cluster-cert-manager',
    'deploy/monitoring',
    'deploy/cluster-api',
  ];

  it('the docs write no other kubectl apply -k path, and show the overlays this suite applies', async () => {
    expect([...(await documentedPaths())].sort()).to.deep.equal([...TESTED].sort());
    expect([...overlays.keys()].sort()).to.deep.equal(['my-cluster', 'my-cluster-cert-manager']);
  });

  it('the pieces one by one: deploy/crds, the Namespace, deploy/rbac, deploy/manager, deploy/policies', async () => {
    const crds = await apply('deploy/crds');
    await kubectl('wait', '--for=condition=Established', '--timeout=60s', ...crds.map(kubectlName));
    await kubectl('apply', '-f', join(REPO_ROOT, 'deploy/manager/namespace.yaml'));
    await apply('deploy/rbac');
    await apply('deploy/manager');
    expect((await apply('deploy/policies')).map(kubectlName)).to.include.members([
      'validatingadmissionpolicy.admissionregistration.k8s.io/keymaster-ledger-writers',
    ]);
  });

  it('deploy: the CRDs, RBAC and the controller', async () => {
    const kinds = (await apply('deploy')).map(({ kind }) => kind);
    expect(kinds).to.include.members(['CustomResourceDefinition', 'ClusterRole', 'Deployment', 'Namespace']);
  });

  it('deploy/webhooks: deploy, the webhook configurations, their Service, flags and CA injection', async () => {
    const rendered = await apply('deploy/webhooks');
    expect(rendered.map(kubectlName)).to.include.members([
      'mutatingwebhookconfiguration.admissionregistration.k8s.io/keymaster',
      'validatingwebhookconfiguration.admissionregistration.k8s.io/keymaster',
      'service/keymaster-webhook',
      'clusterrole.rbac.authorization.k8s.io/keymaster-webhook-ca-injector',
      'customresourcedefinition.apiextensions.k8s.io/awsclusters.infrastructure.keymaster.dev',
      'apiservice.apiregistration.k8s.io/v1alpha1.inspect.keymaster.dev',
      'clusterrole.rbac.authorization.k8s.io/keymaster-inspect-api',
      'rolebinding.rbac.authorization.k8s.io/keymaster-inspect-api',
    ]);
    const deployment = JSON.parse(
      await kubectl('get', 'deployment', 'keymaster-controller', '--namespace', 'keymaster-system', '-o', 'json'),
    ) as { spec: { template: { spec: { containers: { args: string[] }[] } } } };
    expect(deployment.spec.template.spec.containers[0]!.args).to.include.members([
      '--webhook-port=9443',
      '--webhook-inject-ca-bundle',
    ]);
  });

  it('the docs overlay with the cert-manager component: Issuer, Certificate, CA annotations, no controller injection', async () => {
    const rendered = await apply('my-cluster-cert-manager');
    const names = rendered.map(kubectlName);
    expect(names).to.include.members([
      'issuer.cert-manager.io/keymaster-selfsigned',
      'certificate.cert-manager.io/keymaster-webhook',
    ]);
    expect(names).not.to.include('clusterrole.rbac.authorization.k8s.io/keymaster-webhook-ca-injector');
    const certificate = rendered.find(({ kind }) => kind === 'Certificate') as KubernetesObject & {
      spec: { secretName: string; dnsNames: string[] };
    };
    expect(certificate.spec.secretName).to.equal('keymaster-webhook-cert');
    expect(certificate.spec.dnsNames).to.include('keymaster-webhook.keymaster-system.svc');
    for (const [kind, name] of [
      ['MutatingWebhookConfiguration', 'keymaster'],
      ['ValidatingWebhookConfiguration', 'keymaster'],
      ['APIService', 'v1alpha1.inspect.keymaster.dev'],
    ] as const) {
      const live = JSON.parse(await kubectl('get', kind.toLowerCase(), name, '-o', 'json')) as KubernetesObject;
      expect(live.metadata?.annotations?.['cert-manager.io/inject-ca-from'], kind).to.equal(
        'keymaster-system/keymaster-webhook',
      );
    }
    const deployment = rendered.find(({ kind }) => kind === 'Deployment') as KubernetesObject & {
      spec: { template: { spec: { containers: { args: string[] }[] } } };
    };
    const args = deployment.spec.template.spec.containers[0]!.args;
    expect(args).to.include('--webhook-port=9443');
    expect(args).not.to.include('--webhook-inject-ca-bundle');
  });

  it('deploy/monitoring: the ServiceMonitor and alerts as rendered, the dashboard ConfigMap applied', async () => {
    const rendered = await apply('deploy/monitoring');
    expect(rendered.map(kubectlName)).to.include.members([
      'servicemonitor.monitoring.coreos.com/keymaster-controller',
      'prometheusrule.monitoring.coreos.com/keymaster',
      'configmap/keymaster-dashboard',
    ]);
  });

  it("deploy/cluster-api (--adopt-cluster-api): the adoption's rights and the reads of CAPA's identities and Secrets", async () => {
    // CAPA's namespace exists wherever CAPA runs: its static identities' Secrets are read there.
    await kubectl('create', 'namespace', 'capa-system');
    const rendered = await apply('deploy/cluster-api');
    expect(rendered.map(kubectlName)).to.have.members([
      'clusterrole.rbac.authorization.k8s.io/keymaster-cluster-api-adoption',
      'clusterrolebinding.rbac.authorization.k8s.io/keymaster-cluster-api-adoption',
      'clusterrole.rbac.authorization.k8s.io/keymaster-capa-identities',
      'clusterrolebinding.rbac.authorization.k8s.io/keymaster-capa-identities',
      'role.rbac.authorization.k8s.io/keymaster-capa-secrets',
      'rolebinding.rbac.authorization.k8s.io/keymaster-capa-secrets',
    ]);
  });

  it("the docs' my-cluster overlay of deploy", async () => {
    const rendered = await apply('my-cluster');
    expect(rendered.map(kubectlName)).to.include('deployment.apps/keymaster-controller');
  });
});

/** The lines of README.md's ```sh blocks, as a reader copies them (comments dropped). */
async function readmeShellLines(): Promise<string[]> {
  const text = await readFile(join(REPO_ROOT, 'README.md'), 'utf8');
  return [...text.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap(([, body]) =>
    body!.split('\n').flatMap((line) => {
      const command = line.replace(/\s+#.*$/, '').trim();
      return command === '' ? [] : [command];
    }),
  );
}

describe("README.md's commands run as written on a clone", function () {
  this.timeout(120_000);

  it('use no global pnpm: the Quick start installs nothing global', async () => {
    const lines = await readmeShellLines();
    expect(lines, 'no sh block found').to.not.be.empty;
    expect(lines.filter((line) => /^pnpm\b/.test(line))).to.deep.equal([]);
  });

  it('each keymaster line parses (with --help appended) and prints only its help on stdout', async () => {
    const keymasterLines = (await readmeShellLines()).filter((line) => line.startsWith('npx pnpm -s keymaster '));
    expect(keymasterLines, 'no keymaster line').to.not.be.empty;
    for (const line of keymasterLines) {
      const { stdout } = await run('bash', ['-c', `${line} --help`], { cwd: REPO_ROOT });
      expect(stdout, line).to.match(/^Usage: keymaster /);
    }
  });

  it('the kubectl plugin installs with the line README.md gives, and runs', async () => {
    const install = (await readmeShellLines()).find((line) => line.includes('kubectl-keymaster'));
    expect(install, 'no plugin install line').to.be.a('string');
    const home = await mkdtemp(join(tmpdir(), 'keymaster-home-'));
    try {
      await run('bash', ['-c', install!], { cwd: REPO_ROOT, env: { ...process.env, HOME: home } });
      const { stdout } = await run(join(home, '.local/bin/kubectl-keymaster'), ['plan', '--help']);
      expect(stdout).to.match(/^Usage: keymaster plan /);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
