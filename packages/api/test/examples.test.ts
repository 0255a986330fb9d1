import { readdir, readFile } from 'node:fs/promises';
import { expect } from 'chai';
import { parseAllDocuments } from 'yaml';
import { GROUP, validateObject } from '../src/index.js';

const examplesDir = new URL('../../../deploy/examples/', import.meta.url);

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  spec?: Record<string, unknown>;
  stringData?: Record<string, string>;
}

async function loadExamples(): Promise<{ file: string; manifest: Manifest }[]> {
  const files = (await readdir(examplesDir)).filter((file) => file.endsWith('.yaml')).sort();
  const loaded = [];
  for (const file of files) {
    for (const document of parseAllDocuments(await readFile(new URL(file, examplesDir), 'utf8'))) {
      expect(document.errors, file).to.be.empty;
      loaded.push({ file, manifest: document.toJS() as Manifest });
    }
  }
  return loaded;
}

describe('deploy/examples', () => {
  it('every object of ours is valid against its schema', async () => {
    const examples = await loadExamples();
    const ours = examples.filter(({ manifest }) => manifest.apiVersion.startsWith(`${GROUP}/`));
    expect(ours.length).to.be.greaterThan(5);
    for (const { file, manifest } of ours) {
      expect(validateObject(manifest), `${file}: ${manifest.kind}/${manifest.metadata.name}`).to.deep.equal([]);
    }
  });

  it('is a realistic multi-tenant set: two tenants, every identity kind, a two-link chain with an externalID in a Secret, a tag policy', async () => {
    const examples = (await loadExamples()).map(({ manifest }) => manifest);
    const byKind = (kind: string) => examples.filter((manifest) => manifest.kind === kind);
    expect(byKind('Namespace').map((ns) => ns.metadata.name)).to.include.members(['tenant-a', 'tenant-b']);
    for (const kind of [
      'AWSClusterControllerIdentity',
      'AWSClusterStaticIdentity',
      'AWSClusterRoleIdentity',
      'AWSTagPolicy',
    ]) {
      expect(byKind(kind), kind).not.to.be.empty;
    }
    const roles = new Map(byKind('AWSClusterRoleIdentity').map((role) => [role.metadata.name, role.spec!]));
    const chained = [...roles.values()].find((spec) => {
      const source = spec['sourceIdentityRef'] as { kind: string; name: string } | undefined;
      return source?.kind === 'AWSClusterRoleIdentity' && roles.has(source.name);
    });
    expect(chained, 'a role sourced from another role').to.exist;
    expect(chained!['externalIDSecretRef'], 'its externalID kept in a Secret').to.be.an('object');
    const clusterNamespaces = new Set(byKind('AWSCluster').map((cluster) => cluster.metadata.namespace));
    expect([...clusterNamespaces]).to.include.members(['tenant-a', 'tenant-b']);
  });

  it("keeps no externalID in a spec, tenants may read those: each role's Secret of the examples holds its key", async () => {
    const examples = (await loadExamples()).map(({ manifest }) => manifest);
    const roles = examples.filter((manifest) => manifest.kind === 'AWSClusterRoleIdentity');
    expect(
      roles.filter((role) => role.spec!['externalID'] !== undefined).map((role) => role.metadata.name),
    ).to.deep.equal([]);
    for (const role of roles.filter((manifest) => manifest.spec!['externalIDSecretRef'] !== undefined)) {
      const { name, key } = role.spec!['externalIDSecretRef'] as { name: string; key: string };
      const secret = examples.find(
        (manifest) =>
          manifest.kind === 'Secret' &&
          manifest.metadata.name === name &&
          manifest.metadata.namespace === 'keymaster-system',
      );
      expect(secret, `Secret keymaster-system/${name} of ${role.metadata.name}`).to.exist;
      expect(secret!.stringData).to.have.property(key).that.is.a('string');
    }
  });

  it('static identities point at Secrets of the examples that hold both keys', async () => {
    const examples = (await loadExamples()).map(({ manifest }) => manifest);
    for (const identity of examples.filter((manifest) => manifest.kind === 'AWSClusterStaticIdentity')) {
      const secret = examples.find(
        (manifest) => manifest.kind === 'Secret' && manifest.metadata.name === identity.spec!['secretRef'],
      );
      expect(secret, `Secret ${String(identity.spec!['secretRef'])}`).to.exist;
      expect(secret!.stringData).to.have.keys('AccessKeyID', 'SecretAccessKey');
    }
  });
});
