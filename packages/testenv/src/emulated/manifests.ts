import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  ApiException,
  KubernetesObjectApi,
  loadYaml,
  type KubeConfig,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { KeymasterError } from '@keymaster/api';

/** A Kubernetes object as written in a manifest file. */
export interface Manifest extends KubernetesObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  spec?: Record<string, unknown>;
}

// kustomize's own files describe a build, they are not objects of the cluster.
const isClusterObject = (document: Partial<Manifest>) => !document.apiVersion?.startsWith('kustomize.config.k8s.io/');

const hasContent = (text: string) => text.split('\n').some((line) => !/^\s*(#.*)?$/.test(line));

/** Every object of a folder's YAML files, file by file in name order (so 00-namespaces.yaml comes first). */
export async function readManifests(dir: string): Promise<Manifest[]> {
  let files: string[];
  try {
    files = (await readdir(dir)).filter((file) => /\.ya?ml$/.test(file)).sort();
  } catch (error) {
    throw new KeymasterError(
      'ERR_KEYMASTER_DEMO_MANIFESTS',
      `cannot read the manifests folder ${dir}: ${(error as Error).message}`,
      {
        hint: 'Pass a folder of Kubernetes YAML files.',
        cause: error,
      },
    );
  }
  const manifests: Manifest[] = [];
  for (const file of files) {
    // Split on document markers as kubectl does: client-node fails on empty (or comment-only) documents.
    const documents = (await readFile(join(dir, file), 'utf8')).split(/^---[ \t]*$/m).filter(hasContent);
    for (const text of documents) {
      const document = loadYaml<Partial<Manifest>>(text);
      if (!isClusterObject(document)) continue;
      if (!document.apiVersion || !document.kind || !document.metadata?.name)
        throw new KeymasterError(
          'ERR_KEYMASTER_DEMO_MANIFESTS',
          `${join(dir, file)}: an object lacks apiVersion, kind or metadata.name`,
          {
            hint: 'Every YAML document must be a Kubernetes object.',
          },
        );
      manifests.push(document as Manifest);
    }
  }
  return manifests;
}

/** The API server's own message from a Status body, rather than client-node's wrapper text. */
function refusalMessage(error: unknown): string {
  if (!(error instanceof ApiException)) return String(error);
  try {
    return (JSON.parse(error.body as string) as { message?: string }).message ?? String(error.body);
  } catch {
    return String(error.body);
  }
}

/** Creates the objects in order, as `kubectl create -f` would. */
export async function createObjects(kubeConfig: KubeConfig, manifests: readonly Manifest[]): Promise<void> {
  const client = KubernetesObjectApi.makeApiClient(kubeConfig);
  for (const manifest of manifests) {
    try {
      await client.create(manifest);
    } catch (error) {
      const { metadata } = manifest;
      throw new KeymasterError(
        'ERR_KEYMASTER_DEMO_MANIFESTS',
        `cannot create ${manifest.kind} ${metadata.namespace ? `${metadata.namespace}/` : ''}${metadata.name}: ${refusalMessage(error)}`,
        { hint: 'Fix the manifest: the API server refused it as shown.', cause: error },
      );
    }
  }
}
