import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubernetesObjectApi, loadAllYaml, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { expect } from 'chai';
import { parseAllDocuments } from 'yaml';

/** The project's deploy/ folder, in install order: what `kubectl apply -k deploy` installs, then the examples. */
export const DEPLOY = fileURLToPath(new URL('../../../../deploy', import.meta.url));
const FOLDERS = ['crds', 'manager', 'rbac', 'policies', 'examples'];

/** One document of deploy/: as written (for kubectl) and as client-node's typed models hold it. */
export interface Manifest {
  file: string;
  raw: KubernetesObject;
  typed: KubernetesObject;
}

/** Every manifest of deploy/ (crds, manager, rbac, examples), file by file, document by document. */
export function manifests(): Manifest[] {
  return FOLDERS.flatMap((folder) =>
    readdirSync(join(DEPLOY, folder))
      .filter((name) => /\.ya?ml$/.test(name) && name !== 'kustomization.yaml')
      .sort()
      .flatMap((name) => {
        const text = readFileSync(join(DEPLOY, folder, name), 'utf8');
        const raw = parseAllDocuments(text).map((document) => document.toJS() as KubernetesObject);
        // loadAllYaml maps x-kubernetes-* and other wire names onto the models that client-node sends.
        const typed = loadAllYaml(text) as KubernetesObject[];
        expect(typed, name).to.have.length(raw.length);
        return raw.map((object, index) => ({ file: `${folder}/${name}`, raw: object, typed: typed[index]! }));
      }),
  );
}

/** The Namespace first (the others live in it), then the rest in file order, as kustomize sorts them. */
const installOrder = (all: Manifest[]): Manifest[] => [
  ...all.filter(({ raw }) => raw.kind === 'Namespace'),
  ...all.filter(({ raw }) => raw.kind !== 'Namespace'),
];

/** Creates objects with client-node, in order. */
export async function installObjects(kubeConfig: KubeConfig, objects: KubernetesObject[]): Promise<void> {
  const client = KubernetesObjectApi.makeApiClient(kubeConfig);
  for (const object of objects) await client.create(object);
}

/** Creates the manifests with client-node, in install order; a refusal names the file and the object. */
export async function installManifests(kubeConfig: KubeConfig, all: Manifest[]): Promise<void> {
  const client = KubernetesObjectApi.makeApiClient(kubeConfig);
  for (const manifest of installOrder(all)) {
    try {
      await client.create(manifest.typed);
    } catch (error) {
      throw new Error(
        `${describeManifest(manifest)} was refused: ${String((error as { body?: unknown }).body ?? error)}`,
        { cause: error },
      );
    }
  }
}

export const describeManifest = ({ file, raw }: Manifest): string =>
  `${file}: ${raw.kind}/${raw.metadata?.namespace ? `${raw.metadata.namespace}/` : ''}${raw.metadata?.name}`;
