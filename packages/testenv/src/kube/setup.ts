import { setTimeout as sleep } from 'node:timers/promises';
import { readCrdFolder } from '@keymaster/kube-emulator';
import { TestEnvError } from '../errors.js';
import type { AdminClient, Response } from './client.js';

interface CrdSpec {
  group: string;
  names: { plural: string };
  versions: { name: string; served: boolean }[];
}

function established(body: string): boolean {
  const { status } = JSON.parse(body) as { status?: { conditions?: { type: string; status: string }[] } };
  return status?.conditions?.some(({ type, status }) => type === 'Established' && status === 'True') ?? false;
}

/** GETs `path` until `ok` accepts the answer; after `deadline`, fails with `message` and the last answer. */
async function pollUntil(
  client: AdminClient,
  path: string,
  ok: (response: Response) => boolean,
  deadline: number,
  message: string,
): Promise<void> {
  for (;;) {
    const response = await client.send('GET', path);
    if (ok(response)) return;
    if (Date.now() > deadline) {
      throw new TestEnvError('ERR_KEYMASTER_TESTENV_CRDS', message, {
        hint: `GET ${path} answered ${response.status}: ${response.body}`,
      });
    }
    await sleep(100);
  }
}

/**
 * Creates the CRDs of a folder (the files the kube-emulator reads with --crds) and waits until each
 * is served: Established, and its resource's storage ready (until then, requests get 429).
 */
export async function installCrds(client: AdminClient, folder: string, timeoutMs: number): Promise<void> {
  const crds = readCrdFolder(folder);
  for (const { file, crd } of crds) {
    const response = await client.send('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
    if (response.status !== 201) {
      throw new TestEnvError(
        'ERR_KEYMASTER_TESTENV_CRDS',
        `${file}: kube-apiserver refused the CRD (${response.status}): ${response.body}`,
        {
          hint: 'fix the CustomResourceDefinition in that file',
        },
      );
    }
  }
  const deadline = Date.now() + timeoutMs;
  for (const { file, crd } of crds) {
    const { metadata, spec } = crd as unknown as { metadata: { name: string }; spec: CrdSpec };
    const message = `${file}: the CRD ${metadata.name} was not served after ${timeoutMs / 1000} s`;
    await pollUntil(
      client,
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${metadata.name}`,
      (response) => response.status === 200 && established(response.body),
      deadline,
      message,
    );
    const version = spec.versions.find(({ served }) => served)?.name;
    if (version) {
      const list = `/apis/${spec.group}/${version}/${spec.names.plural}?limit=1`;
      await pollUntil(client, list, (response) => response.status === 200, deadline, message);
    }
  }
}

/** Creates namespaces; one that exists already is fine. */
export async function createNamespaces(client: AdminClient, names: readonly string[]): Promise<void> {
  for (const name of names) {
    const response = await client.send('POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name },
    });
    if (response.status !== 201 && response.status !== 409) {
      throw new TestEnvError(
        'ERR_KEYMASTER_TESTENV_NAMESPACE',
        `cannot create the namespace ${JSON.stringify(name)} (${response.status}): ${response.body}`,
        { hint: 'namespace names are DNS labels: lower-case letters, digits and dashes' },
      );
    }
  }
}
