import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { stringify } from 'yaml';
import { GROUP, IDENTITY_KINDS } from '../src/constants.js';
import { customResourceDefinitions } from '../src/crds.js';
import { KINDS } from '../src/schema/index.js';
import { renderApiReference } from './api-reference.js';
import { iamFiles } from './iam-files.js';
import { longPages, withTableOfContents } from './toc.js';
import { renderTypes } from './typegen.js';
import { renderClusterRole, renderHelmIdentityRules } from './rbac.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

async function formatted(path: string, text: string): Promise<string> {
  const options = await resolveConfig(path);
  return format(text, { ...options, filepath: path });
}

/** Every generated file, by absolute path: from the schemas, the CRDs (for Kustomize and the Helm chart), their kustomization, the TypeScript types, the API reference and the controller's ClusterRole (its identity rules, also for the Helm chart); the IAM files; the long docs pages with their tables of contents. */
export async function generatedFiles(): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const crdFiles: string[] = [];
  for (const crd of customResourceDefinitions()) {
    const name = `${GROUP}_${crd.spec.names.plural}.yaml`;
    crdFiles.push(name);
    const text = stringify(crd, { lineWidth: 0 });
    files.set(`${root}deploy/crds/${name}`, text);
    // The Helm chart installs the same CRDs from its crds/ folder (Helm cannot read files outside the chart).
    files.set(`${root}deploy/helm/keymaster/crds/${name}`, text);
  }
  files.set(
    `${root}deploy/crds/kustomization.yaml`,
    stringify({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources: crdFiles }),
  );
  files.set(`${root}packages/api/src/generated/types.ts`, renderTypes(KINDS, IDENTITY_KINDS));
  files.set(`${root}docs/api.md`, renderApiReference(KINDS));
  files.set(`${root}deploy/rbac/cluster-role.yaml`, renderClusterRole(KINDS, IDENTITY_KINDS));
  for (const [name, text] of iamFiles()) files.set(`${root}deploy/iam/${name}`, text);
  for (const page of longPages(root))
    files.set(`${root}${page}`, withTableOfContents(readFileSync(`${root}${page}`, 'utf8')));
  for (const [path, text] of files) files.set(path, await formatted(path, text));
  // A Go template (Helm), not YAML until rendered: prettier cannot read it.
  files.set(
    `${root}deploy/helm/keymaster/templates/_identity-rules.tpl`,
    renderHelmIdentityRules(KINDS, IDENTITY_KINDS),
  );
  return files;
}
