import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadAllYaml, type KubernetesObject, type V1ClusterRole, type V1RoleBinding } from '@kubernetes/client-node';
import { REPO_ROOT } from './controller-process.js';

/** The ServiceAccount deploy/manager's Deployment runs as, as the API server names it. */
export const CONTROLLER_SERVICE_ACCOUNT = 'system:serviceaccount:keymaster-system:keymaster';
/** The tenant the RBAC example of docs/security.md is written for; other tenants are it, renamed. */
const EXAMPLE_TENANT = 'tenant-a';
const EDITOR_ROLE = 'keymaster-awscluster-editor';
const VIEWER_ROLE = 'keymaster-identity-viewer';
/** The variant of the editor role that may also write status: granted for one attack only. */
const STATUS_WRITER_ROLE = 'keymaster-awscluster-status-writer';

/** Every object of the YAML files of a folder of the repository (kustomization.yaml aside). */
export async function manifests(folder: string): Promise<KubernetesObject[]> {
  const files = (await readdir(join(REPO_ROOT, folder)))
    .filter((name) => name.endsWith('.yaml') && name !== 'kustomization.yaml')
    .sort();
  const texts = await Promise.all(files.map((name) => readFile(join(REPO_ROOT, folder, name), 'utf8')));
  return texts.flatMap((text) => loadAllYaml(text) as KubernetesObject[]);
}

/** The YAML block after a marker (`<!-- name: ... -->`) of a page of docs/. */
async function docsExample(page: string, marker: string): Promise<string> {
  const doc = await readFile(join(REPO_ROOT, 'docs', page), 'utf8');
  const block = new RegExp(`<!-- ${marker}[^>]*-->\\s*\`\`\`yaml\\n([\\s\\S]*?)\`\`\``).exec(doc);
  if (!block) throw new Error(`docs/${page} has no ${marker} YAML block`);
  return block[1]!;
}

const tenantRbacExample = () => docsExample('security.md', 'tenant-rbac');

/** The RoleBinding that enables credential vending in a namespace, as docs/credentials.md writes it for tenant-a. */
export async function credentialVending(namespace: string): Promise<V1RoleBinding> {
  const [binding] = loadAllYaml(
    (await docsExample('credentials.md', 'credential-vending')).replaceAll(EXAMPLE_TENANT, namespace),
  ) as V1RoleBinding[];
  return binding!;
}

const isClusterRole = (object: KubernetesObject): object is V1ClusterRole => object.kind === 'ClusterRole';

/**
 * The ClusterRoles of the example, once for every tenant, and the status-writer variant of the
 * editor role: the same rules, with `update` and `patch` on `awsclusters/status` too.
 */
export async function tenantRoles(): Promise<KubernetesObject[]> {
  const roles = (loadAllYaml(await tenantRbacExample()) as KubernetesObject[]).filter(isClusterRole);
  const editor = roles.find(({ metadata }) => metadata?.name === EDITOR_ROLE);
  if (!editor) throw new Error(`the tenant RBAC example has no ClusterRole ${EDITOR_ROLE}`);
  const statusWriter: V1ClusterRole = {
    apiVersion: editor.apiVersion,
    kind: 'ClusterRole',
    metadata: { name: STATUS_WRITER_ROLE },
    rules: (editor.rules ?? []).map(({ apiGroups, resources, verbs }) => ({
      apiGroups,
      resources,
      verbs: resources?.includes('awsclusters/status') ? ['get', 'update', 'patch'] : verbs,
    })),
  };
  return [...roles, statusWriter];
}

/**
 * The example's bindings for `tenant` (namespace `tenant`, group `<tenant>-developers`), exactly as
 * written for tenant-a but renamed; with `statusWrite`, bound to the status-writer variant instead;
 * without `identityViewer`, not bound to the optional identity viewer; with `quota`, its ResourceQuota too.
 */
export async function tenantBindings(
  tenant: string,
  { statusWrite = false, identityViewer = true, quota = false } = {},
): Promise<KubernetesObject[]> {
  const objects = loadAllYaml((await tenantRbacExample()).replaceAll(EXAMPLE_TENANT, tenant)) as KubernetesObject[];
  return objects
    .filter((object) => !isClusterRole(object))
    .filter((object) => quota || object.kind !== 'ResourceQuota')
    .filter((object) => identityViewer || (object as { roleRef?: { name: string } }).roleRef?.name !== VIEWER_ROLE)
    .map((object) => {
      const binding = object as KubernetesObject & { roleRef?: { name: string } };
      return statusWrite && binding.roleRef?.name === EDITOR_ROLE
        ? { ...binding, roleRef: { ...binding.roleRef, name: STATUS_WRITER_ROLE } }
        : binding;
    });
}

/**
 * What a namespace's owners usually may do there besides the tenant RBAC example: manage its Secrets
 * and its AWSCredentialsRequests. Bound to each tenant's developers in their namespace only.
 */
export function namespaceOwnerRights(tenants: string[]): (V1ClusterRole | V1RoleBinding)[] {
  const role: V1ClusterRole = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'namespace-owner-credentials' },
    rules: [
      {
        apiGroups: [''],
        resources: ['secrets'],
        verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
      },
      {
        apiGroups: ['infrastructure.keymaster.dev'],
        resources: ['awscredentialsrequests'],
        verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
      },
    ],
  };
  const bindings = tenants.map((tenant): V1RoleBinding => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'namespace-owner-credentials', namespace: tenant },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'namespace-owner-credentials' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: `${tenant}-developers` }],
  }));
  return [role, ...bindings];
}

/**
 * A variant some platforms grant: everything in the tenant's own namespace (`*` on `*`), bound to
 * `<tenant>-developers` there, on top of the example's bindings.
 */
export function everythingInNamespace(tenant: string): KubernetesObject[] {
  const metadata = { name: `${tenant}-everything`, namespace: tenant };
  return [
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata,
      rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
    } as KubernetesObject,
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata,
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: metadata.name },
      subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: `${tenant}-developers` }],
    } as KubernetesObject,
  ];
}
