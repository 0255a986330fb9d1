import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { requireHelm } from '@keymaster/testenv';
import { CHART, parseManifests, type Manifest } from './repo.js';

const run = promisify(execFile);
// helm's home and the values files of this test run, removed when it ends.
export const SCRATCH = mkdtempSync(join(tmpdir(), 'keymaster-helm-'));
process.once('exit', () => rmSync(SCRATCH, { recursive: true, force: true }));

export interface HelmResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs helm with its own config and cache dirs (no repositories, no user settings); never throws on an exit code. */
export async function helm(args: string[], kubeconfig?: string): Promise<HelmResult> {
  const home = await mkdtemp(join(SCRATCH, 'home-'));
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    HELM_CONFIG_HOME: join(home, 'config'),
    HELM_CACHE_HOME: join(home, 'cache'),
    HELM_DATA_HOME: join(home, 'data'),
    ...(kubeconfig ? { KUBECONFIG: kubeconfig } : {}),
  };
  try {
    const { stdout, stderr } = await run(requireHelm(), args, { env, maxBuffer: 64 * 1024 * 1024, timeout: 120_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return {
      code: typeof failed.code === 'number' ? failed.code : -1,
      stdout: failed.stdout ?? '',
      stderr: failed.stderr ?? '',
    };
  }
}

/** A values file (JSON is YAML) for `-f`: no --set quoting of lists and maps. */
export async function valuesFile(values: object): Promise<string> {
  const path = join(await mkdtemp(join(SCRATCH, 'values-')), 'values.yaml');
  await writeFile(path, JSON.stringify(values));
  return path;
}

export const RELEASE = 'keymaster';
export const NAMESPACE = 'keymaster-system';

/** `helm template` of the chart with these values, as manifests; fails on a render error or an empty document. */
export async function render(values: object = {}): Promise<Manifest[]> {
  const result = await helm(['template', RELEASE, CHART, '--namespace', NAMESPACE, '-f', await valuesFile(values)]);
  if (result.code !== 0) throw new Error(`helm template failed (${result.code}): ${result.stderr}`);
  return parseManifests(result.stdout, 'helm template');
}

/** The one object of a kind (and name, when given) among manifests. */
export function only(manifests: Manifest[], kind: string, name?: string): Manifest {
  const found = manifests.filter(
    (object) => object.kind === kind && (name === undefined || object.metadata.name === name),
  );
  if (found.length !== 1) throw new Error(`expected one ${kind}${name ? ` ${name}` : ''}, found ${found.length}`);
  return found[0]!;
}
