import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

/** The repository's root, with a trailing slash. */
export const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
export const CHART = `${ROOT}deploy/helm/keymaster`;

export const readText = (path: string): string => readFileSync(`${ROOT}${path}`, 'utf8');

/** The code block of a page that starts with this line (e.g. `# my-cluster/kustomization.yaml`). */
export function codeBlock(page: string, firstLine: string): string {
  const block = new RegExp(
    `^\`\`\`\\w*\\n(${firstLine.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}[^]*?)^\`\`\`$`,
    'm',
  ).exec(readText(page));
  if (!block) throw new Error(`${page} has no code block starting with ${firstLine}`);
  return block[1]!;
}

/** A Kubernetes object as found in a manifest; only what the tests look at is typed. */
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

/** Every document of a YAML stream; an empty one (a template that rendered nothing) is an error. */
export function parseManifests(text: string, source: string): Manifest[] {
  return parseAllDocuments(text).map((document, index) => {
    if (document.errors.length > 0) throw new Error(`${source}, document ${index}: ${document.errors[0]!.message}`);
    const object = document.toJS() as Manifest | null;
    if (!object || typeof object !== 'object' || !object.kind)
      throw new Error(`${source}, document ${index} is empty or has no kind:\n${String(document)}`);
    return object;
  });
}

export const readManifests = (path: string): Manifest[] => parseManifests(readText(path), path);
