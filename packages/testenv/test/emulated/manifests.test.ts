import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { readManifests } from '../../src/emulated/manifests.js';
import { EXAMPLES_DIR } from '../../src/emulated/paths.js';

async function refusal(dir: string): Promise<Error & { code: string }> {
  try {
    await readManifests(dir);
  } catch (error) {
    return error as Error & { code: string };
  }
  return expect.fail(`${dir} was read`);
}

describe('demo: manifests', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'keymaster-manifests-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads deploy/examples/ file by file: namespaces first, the clusters (and the refused one) last', async () => {
    const manifests = await readManifests(EXAMPLES_DIR);
    expect(manifests[0]).to.deep.include({ kind: 'Namespace' });
    expect(
      manifests.filter(({ kind }) => kind === 'Namespace').map(({ metadata }) => metadata.name),
    ).to.include.members(['tenant-a', 'tenant-b', 'tenant-c']);
    const clusters = manifests.filter(({ kind }) => kind === 'AWSCluster');
    expect(manifests.slice(-clusters.length)).to.deep.equal(clusters);
    expect(clusters.map(({ metadata }) => `${metadata.namespace}/${metadata.name}`)).to.include(
      'tenant-c/reporting-prod',
    );
  });

  it('skips empty documents and kustomize files, and takes .yml files too', async () => {
    await writeFile(
      join(dir, 'kustomization.yaml'),
      'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [b.yml]\n',
    );
    await writeFile(join(dir, 'b.yml'), '---\napiVersion: v1\nkind: Namespace\nmetadata: {name: b}\n---\n');
    await writeFile(join(dir, 'notes.txt'), 'not a manifest');
    expect(await readManifests(dir)).to.deep.equal([{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'b' } }]);
  });

  it('names the file of a document that is not a Kubernetes object, and a folder it cannot read', async () => {
    await writeFile(join(dir, 'a.yaml'), 'kind: Namespace\nmetadata: {name: a}\n');
    const refused = await refusal(dir);
    expect(refused).to.include({ code: 'ERR_KEYMASTER_DEMO_MANIFESTS' });
    expect(refused.message).to.include(join(dir, 'a.yaml')).and.include('apiVersion');
    const missing = await refusal(join(dir, 'missing'));
    expect(missing).to.include({ code: 'ERR_KEYMASTER_DEMO_MANIFESTS' });
    expect(missing.message).to.include(join(dir, 'missing'));
  });
});
