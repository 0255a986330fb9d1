import { join } from 'node:path';
import { KubernetesObjectApi, type KubernetesObject } from '@kubernetes/client-node';
import { expect } from 'chai';
import { DEPLOY, describeManifest, installManifests, manifests, type Manifest } from './helpers/deploy.js';
import { startTestCluster, type TestCluster } from './helpers/emulator.js';
import { kubectl, kubectlBinary } from './helpers/kubectl.js';

/** What the manifest asked for is in the live object (the server may add defaults, never drop or change a field). */
function expectContains(live: unknown, wanted: unknown, path: string): void {
  if (Array.isArray(wanted)) {
    expect(live, path).to.be.an('array').with.length(wanted.length);
    wanted.forEach((item, index) => expectContains((live as unknown[])[index], item, `${path}[${index}]`));
  } else if (typeof wanted === 'object' && wanted !== null) {
    expect(live, path).to.be.an('object');
    for (const [key, value] of Object.entries(wanted))
      expectContains((live as Record<string, unknown>)[key], value, `${path}.${key}`);
  } else expect(live, path).to.equal(wanted);
}

/** An object as the API server stores it: a Secret's stringData is folded into base64 data. */
function stored(object: KubernetesObject): KubernetesObject {
  const { stringData, ...rest } = object as KubernetesObject & { stringData?: Record<string, string> };
  if (!stringData) return object;
  const data = (rest as { data?: Record<string, string> }).data ?? {};
  for (const [key, value] of Object.entries(stringData)) data[key] = Buffer.from(value).toString('base64');
  return { ...rest, data } as KubernetesObject;
}

/** `kind.group` for kubectl get, and the namespace flag. */
function kubectlTarget({ raw }: Manifest): string[] {
  const group = raw.apiVersion!.includes('/') ? `.${raw.apiVersion!.split('/')[0]!}` : '';
  const namespace = raw.metadata?.namespace ? ['-n', raw.metadata.namespace] : [];
  return [`${raw.kind!.toLowerCase()}${group}`, raw.metadata!.name!, ...namespace];
}

describe('deploy/ applied to the kube-emulator', function () {
  this.timeout(60_000);
  const all = manifests();
  let cluster: TestCluster;

  // A bare API server: the CRDs come from deploy/crds like everything else.
  beforeEach(async () => {
    cluster = await startTestCluster({ crds: undefined });
  });
  afterEach(() => cluster.stop());

  it('has every piece of an install', () => {
    const kinds = new Set(all.map(({ raw }) => raw.kind));
    for (const kind of [
      'CustomResourceDefinition',
      'Namespace',
      'ServiceAccount',
      'ClusterRole',
      'ClusterRoleBinding',
      'Role',
      'RoleBinding',
      'Deployment',
      'Service',
      'AWSCluster',
    ]) {
      expect(kinds, kind).to.include(kind);
    }
  });

  it('creates every object with client-node and reads each back as written', async () => {
    await installManifests(cluster.kubeConfig, all);
    const client = KubernetesObjectApi.makeApiClient(cluster.kubeConfig);
    for (const manifest of all) {
      const { apiVersion, kind, metadata } = manifest.typed;
      const live = await client.read({
        apiVersion: apiVersion!,
        kind: kind!,
        metadata: { name: metadata!.name!, namespace: metadata?.namespace ?? '' },
      });
      expectContains(live, stored(manifest.typed), describeManifest(manifest));
    }
  });

  for (const minor of [33, 27]) {
    it(`installs with kubectl 1.${minor} apply -k deploy and apply -f deploy/examples; applying again changes nothing`, async () => {
      const run = async (...args: string[]): Promise<string> => {
        const result = await kubectl(kubectlBinary(minor), cluster.kubeconfig, args, { timeoutMs: 30_000 });
        expect(result.code, `kubectl ${args.join(' ')}: ${result.stderr}`).to.equal(0);
        // No warning either: a field the server does not know would be reported here.
        expect(result.stderr, `kubectl ${args.join(' ')}`).to.equal('');
        return result.stdout;
      };
      const apply = async () =>
        (await run('apply', '-k', DEPLOY)) + (await run('apply', '-f', join(DEPLOY, 'examples')));
      const created = (await apply()).trim().split('\n');
      expect(created).to.have.length(all.length);
      expect(
        created.every((line) => line.endsWith(' created')),
        created.join('\n'),
      ).to.equal(true);
      const versions: string[] = [];
      for (const manifest of all) {
        const live = JSON.parse(await run('get', ...kubectlTarget(manifest), '-o', 'json')) as KubernetesObject;
        expectContains(live, stored(manifest.raw), describeManifest(manifest));
        versions.push(live.metadata!.resourceVersion!);
      }
      // kubectl says "configured" where its patch restates defaulted list items or stringData, as with
      // a real API server; what matters is that nothing is written.
      await apply();
      const again = await Promise.all(
        all.map(
          async (manifest) =>
            (JSON.parse(await run('get', ...kubectlTarget(manifest), '-o', 'json')) as KubernetesObject).metadata!
              .resourceVersion!,
        ),
      );
      expect(again).to.deep.equal(versions);
    });
  }
});
