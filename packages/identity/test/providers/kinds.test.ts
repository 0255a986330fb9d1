import { readFile } from 'node:fs/promises';
import { expect } from 'chai';
import { IDENTITY_KIND_FACTS, IDENTITY_KINDS, KINDS, type KindDefinition } from '@keymaster/api';
import { PROVIDERS } from '../../src/index.js';

// The hand-kept places a new kind must reach (docs/identity.md, "Adding an identity kind"): what the
// compiler and `pnpm generate` cannot see. Each check names the kind and the file it is missing from.
const repoFile = (path: string) => readFile(new URL(`../../../../${path}`, import.meta.url), 'utf8');

const definitionOf = (kind: string): KindDefinition => {
  const definition = KINDS.find((candidate) => candidate.kind === kind);
  if (!definition) throw new Error(`${kind} has no definition in KINDS (packages/api/src/schema/identities.ts)`);
  return definition;
};

/** The resources of the identities webhook: the lines of its block that name a resource. */
const identityWebhookResources = (text: string): string[] => {
  const start = text.indexOf('- name: identities.keymaster.dev');
  expect(start, 'the identities webhook').to.be.greaterThan(-1);
  const end = text.indexOf('- name:', start + 1);
  return [...text.slice(start, end === -1 ? undefined : end).matchAll(/^\s+- (aws\w+identities)$/gm)].map(
    ([, plural]) => plural!,
  );
};

describe('every identity kind is complete', () => {
  it('has a provider and a definition, and its schema offers vending exactly when its credentials are a role session', () => {
    for (const kind of IDENTITY_KINDS) {
      expect(PROVIDERS[kind].kind, `the provider of ${kind}`).to.equal(kind);
      const properties = definitionOf(kind).spec.properties ?? {};
      expect('credentialVending' in properties, `${kind}'s spec.credentialVending`).to.equal(
        IDENTITY_KIND_FACTS[kind].roleSession,
      );
    }
  });

  it('is checked by the identities admission webhook (Kustomize and Helm)', async () => {
    for (const path of [
      'deploy/webhooks/webhooks.yaml',
      'deploy/helm/keymaster/templates/webhook-configurations.yaml',
    ]) {
      const resources = identityWebhookResources(await repoFile(path));
      expect(resources, path).to.have.members(IDENTITY_KINDS.map((kind) => definitionOf(kind).plural));
    }
  });

  it('is in the docs: the table of kinds, the RBAC table and the tenant RBAC', async () => {
    const identity = await repoFile('docs/identity.md');
    const security = await repoFile('docs/security.md');
    for (const kind of IDENTITY_KINDS) {
      const { plural } = definitionOf(kind);
      expect(identity, `docs/identity.md's table of kinds: ${kind}`).to.match(new RegExp(`^\\| \`${kind}\` +\\|`, 'm'));
      expect(security, `docs/security.md's RBAC table: ${plural}`).to.include(`\`${plural}\``);
      expect(security, `docs/security.md's RBAC table: ${plural}/status`).to.include(`\`${plural}/status\``);
      expect(
        security,
        `docs/security.md's tenant RBAC (the identity viewer; a namespaced kind: the editor): ${plural}`,
      ).to.match(new RegExp(`^ {6}- ${plural}$`, 'm'));
    }
  });
});
