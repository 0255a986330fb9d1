import { readdirSync } from 'node:fs';
import { expect } from 'chai';
import { ROOT, readManifests, readText, type Manifest } from './repo.js';

interface Rule {
  resources: string[];
  verbs: string[];
}

/** `<role> <resource> <verb>`, one per permission, sorted: a difference names exactly the row to change. */
const permissions = (role: string, resources: string[], verbs: string[]) =>
  resources.flatMap((resource) => verbs.map((verb) => `${role} ${resource} ${verb}`));

/** Every permission the Roles and ClusterRoles of deploy/rbac grant. */
function granted(): string[] {
  const roles = readdirSync(`${ROOT}deploy/rbac`)
    .filter((file) => file.endsWith('.yaml') && file !== 'kustomization.yaml')
    .flatMap((file) => readManifests(`deploy/rbac/${file}`))
    .filter(({ kind }) => kind === 'Role' || kind === 'ClusterRole') as (Manifest & { rules: Rule[] })[];
  return roles
    .flatMap(({ kind, metadata, rules }) =>
      rules.flatMap(({ resources, verbs }) => permissions(`${kind}/${metadata.name}`, resources, verbs)),
    )
    .sort();
}

const backticked = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);

/**
 * The permissions docs/security.md's RBAC table states: the table after its `controller-rbac` marker,
 * one row per rule; a row whose first cell is empty belongs to the role of the row above.
 */
function documented(): string[] {
  const doc = readText('docs/security.md');
  const table = /<!-- controller-rbac[^>]*-->\s*\n((?:\|.*\n)+)/.exec(doc);
  if (!table) throw new Error('docs/security.md has no controller-rbac table');
  let role = '';
  return table[1]!
    .trim()
    .split('\n')
    .slice(2)
    .flatMap((row) => {
      const [first = '', resources = '', verbs = ''] = row.split('|').slice(1);
      const named = /(ClusterRole|Role) `([^`]+)`/.exec(first);
      if (named) role = `${named[1]}/${named[2]}`;
      if (!role) throw new Error(`the first row of the controller-rbac table names no role: ${row}`);
      return permissions(role, backticked(resources), backticked(verbs));
    })
    .sort();
}

describe("docs/security.md's RBAC table", () => {
  it('states exactly the permissions deploy/rbac grants, role by role', () => {
    const inDocs = documented();
    const inDeploy = granted();
    expect(inDeploy.length).to.be.greaterThan(20);
    expect(
      inDeploy.filter((permission) => !inDocs.includes(permission)),
      'granted by deploy/rbac, missing from the table',
    ).to.deep.equal([]);
    expect(
      inDocs.filter((permission) => !inDeploy.includes(permission)),
      'in the table, not granted by deploy/rbac',
    ).to.deep.equal([]);
  });
});
