import { readdirSync } from 'node:fs';
import { expect } from 'chai';
import { parse } from 'yaml';
import { ROOT, readText } from './repo.js';

interface Instruction {
  line: number;
  keyword: string;
  args: string;
}

/** The Dockerfile's instructions, continuation lines joined, comments dropped. */
function instructions(text = readText('Dockerfile')): Instruction[] {
  const found: Instruction[] = [];
  let pending: Instruction | undefined;
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (!pending && (line === '' || line.startsWith('#'))) return;
    const continued = line.endsWith('\\');
    const body = continued ? line.slice(0, -1).trim() : line;
    if (pending) pending.args += ` ${body}`;
    else {
      const [keyword = '', ...rest] = body.split(/\s+/);
      pending = { line: index + 1, keyword: keyword.toUpperCase(), args: rest.join(' ') };
    }
    if (!continued) {
      found.push(pending);
      pending = undefined;
    }
  });
  return found;
}

/** Every workspace package's folder, from pnpm-workspace.yaml's globs (`dir/*` or a plain folder). */
function workspacePackages(): string[] {
  const { packages } = parse(readText('pnpm-workspace.yaml')) as { packages: string[] };
  return packages.flatMap((glob) =>
    glob.endsWith('/*')
      ? readdirSync(`${ROOT}${glob.slice(0, -2)}`, { withFileTypes: true })
          .filter((entry) => entry.isDirectory())
          .map((entry) => `${glob.slice(0, -2)}/${entry.name}`)
      : [glob],
  );
}

describe('Dockerfile', () => {
  const all = instructions();
  const stages = all.reduce<Instruction[][]>((list, instruction) => {
    if (instruction.keyword === 'FROM') list.push([]);
    list.at(-1)?.push(instruction);
    return list;
  }, []);
  const indexOf = (predicate: (instruction: Instruction) => boolean, from = 0) =>
    all.findIndex((instruction, index) => index >= from && predicate(instruction));

  it('builds from and runs on the Node.js CI runs the suites on (packages/testenv/node-versions.env), pinned by digest', () => {
    const base = /^ARG NODE_IMAGE=(\S+)$/m.exec(readText('Dockerfile'))?.[1];
    const proven = /^NODE_LTS_VERSION=(\S+)$/m.exec(readText('packages/testenv/node-versions.env'))?.[1];
    expect(proven, 'NODE_LTS_VERSION in packages/testenv/node-versions.env').to.match(/^\d+\.\d+\.\d+$/);
    expect(base, `ARG NODE_IMAGE=node:${proven}-<variant>@sha256:<digest>`).to.match(
      new RegExp(`^node:${proven!.replaceAll('.', '\\.')}-[a-z0-9.-]+@sha256:[0-9a-f]{64}$`),
    );
    const froms = all.filter((instruction) => instruction.keyword === 'FROM');
    expect(froms.map((from) => from.args.split(' ')[0])).to.deep.equal(['${NODE_IMAGE}', '${NODE_IMAGE}']);
  });

  it('installs dependencies from the lockfile and every workspace manifest before it copies a source', () => {
    const fetch = indexOf((i) => i.keyword === 'RUN' && i.args === 'pnpm fetch');
    const lockfile = indexOf((i) => i.keyword === 'COPY' && i.args.split(' ').includes('pnpm-lock.yaml'));
    const install = indexOf(
      (i) => i.keyword === 'RUN' && i.args.startsWith('pnpm install --frozen-lockfile --offline'),
    );
    const sources = indexOf((i) => i.keyword === 'COPY' && i.args === 'packages packages');
    expect(lockfile, 'COPY pnpm-lock.yaml').to.be.at.least(0).and.below(fetch);
    expect(fetch, 'RUN pnpm fetch').to.be.below(install);
    expect(install, 'RUN pnpm install --offline').to.be.below(sources);
    for (const folder of ['.', ...workspacePackages()]) {
      const manifest = folder === '.' ? 'package.json' : `${folder}/package.json`;
      const copied = indexOf(
        (i) =>
          i.keyword === 'COPY' && i.args.split(' ').slice(0, -1).includes(manifest) && !i.args.startsWith('--from'),
      );
      expect(copied, `COPY ${manifest}`).to.be.at.least(0).and.below(install);
    }
    // Nothing before the install copies more than manifests and the files pnpm reads.
    const allowed = /^(package\.json|pnpm-lock\.yaml|pnpm-workspace\.yaml|\.npmrc|[\w/-]+\/package\.json)$/;
    for (const copy of all.slice(0, install).filter((i) => i.keyword === 'COPY'))
      for (const source of copy.args.split(' ').slice(0, -1)) expect(source, `line ${copy.line}`).to.match(allowed);
  });

  it('deploys the controller with its production dependencies only: no dev-only package (the demo, the emulators)', () => {
    const deploys = all.filter((i) => i.keyword === 'RUN' && /\bpnpm\b.* deploy /.test(i.args));
    expect(deploys, 'one pnpm deploy').to.have.length(1);
    expect(deploys[0]!.args).to.match(/ --filter @keymaster\/reconciler --prod /);
    // What `deploy --prod` takes: the controller's dependencies, and theirs for workspace packages.
    const manifests = new Map(
      workspacePackages().map((folder) => {
        const manifest = JSON.parse(readText(`${folder}/package.json`)) as {
          name: string;
          dependencies?: Record<string, string>;
        };
        return [manifest.name, manifest] as const;
      }),
    );
    const shipped = new Set<string>();
    const visit = (name: string) => {
      if (shipped.has(name) || !manifests.has(name)) return;
      shipped.add(name);
      for (const dependency of Object.keys(manifests.get(name)!.dependencies ?? {})) visit(dependency);
    };
    visit('@keymaster/reconciler');
    expect([...shipped].sort()).to.deep.equal([
      '@keymaster/api',
      '@keymaster/identity',
      '@keymaster/reconciler',
      '@keymaster/tagging',
    ]);
  });

  it('runs as a non-root user, by number, in the final stage', () => {
    const users = stages.at(-1)!.filter((instruction) => instruction.keyword === 'USER');
    expect(users, 'one USER in the final stage').to.have.length(1);
    const [user, group] = users[0]!.args.split(':').map(Number);
    expect(user, 'uid').to.be.greaterThan(0);
    expect(group, 'gid').to.be.greaterThan(0);
  });

  it('labels the image with the OCI annotations', () => {
    const labels = stages
      .at(-1)!
      .filter((instruction) => instruction.keyword === 'LABEL')
      .flatMap((label) => [...label.args.matchAll(/(org\.opencontainers\.image\.[a-z.]+)=/g)].map((match) => match[1]));
    expect(labels).to.include.members([
      'org.opencontainers.image.title',
      'org.opencontainers.image.description',
      'org.opencontainers.image.version',
      'org.opencontainers.image.revision',
      'org.opencontainers.image.created',
      'org.opencontainers.image.base.name',
    ]);
  });

  it('keeps the sources out of the build context that the image does not need', () => {
    const ignored = readText('.dockerignore').split('\n');
    for (const entry of ['**/node_modules', '**/dist', '**/test', '.git']) expect(ignored, entry).to.include(entry);
  });
});
