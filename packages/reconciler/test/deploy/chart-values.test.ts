import { expect } from 'chai';
import { parse } from 'yaml';
import { readText } from './repo.js';

interface SchemaNode {
  properties?: Record<string, SchemaNode>;
  additionalProperties?: boolean | object;
}

/** The values a user sets one by one: where the schema lists an object's properties, its leaves; else the key. */
function valuePaths(schema: SchemaNode, prefix = ''): string[] {
  return Object.entries(schema.properties ?? {}).flatMap(([key, node]) =>
    node.properties ? valuePaths(node, `${prefix}${key}.`) : [`${prefix}${key}`],
  );
}

describe('the Helm chart values', () => {
  const schema = JSON.parse(readText('deploy/helm/keymaster/values.schema.json')) as SchemaNode;
  const paths = valuePaths(schema).filter((path) => path !== 'global');

  it('values.yaml sets every value the schema describes, and no other', () => {
    const defaults = parse(readText('deploy/helm/keymaster/values.yaml')) as Record<string, unknown>;
    const set = (path: string) =>
      path.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], defaults);
    for (const path of paths) expect(set(path), path).to.not.equal(undefined);
    expect(Object.keys(defaults).sort()).to.deep.equal(
      Object.keys(schema.properties!)
        .filter((key) => key !== 'global')
        .sort(),
    );
  });

  it('docs/operations.md describes every value', () => {
    const table = readText('docs/operations.md');
    expect(paths.length).to.be.greaterThan(30);
    for (const path of paths) expect(table, `docs/operations.md has no \`${path}\``).to.include(`\`${path}\``);
  });
});
