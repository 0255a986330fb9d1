import type { V1Namespace } from '@kubernetes/client-node';
import { privilegeOf } from './privileged.js';
import type { Tenancy, WebhookContext } from './context.js';
import { allow, deny, type AdmissionRequest, type JsonPatchOperation, type Verdict } from './review.js';

export const DEFAULT_TENANT_LABEL = 'keymaster.dev/tenant';

/** Kubernetes' own namespaces: like the controller's, never a tenant's. */
const SYSTEM_NAMESPACES = ['kube-system', 'kube-public', 'kube-node-lease'];

const tenantOf = (namespace: unknown, label: string): string | undefined =>
  (namespace as V1Namespace | undefined)?.metadata?.labels?.[label];

/** The one tenant the requester's groups map to; undefined for none or several. */
function mappedTenant(request: AdmissionRequest, tenancy: Tenancy): string | undefined {
  const tenants = new Set(
    (request.userInfo.groups ?? []).flatMap((group) => {
      const tenant = tenancy.groupTenants.get(group);
      return tenant === undefined ? [] : [tenant];
    }),
  );
  return tenants.size === 1 ? [...tenants][0] : undefined;
}

/** JSON Pointer escaping of a label key (`keymaster.dev/tenant` -> `keymaster.dev~1tenant`). */
const pointer = (key: string): string => key.replaceAll('~', '~0').replaceAll('/', '~1');

/** A namespace created without the tenancy label by a member of a mapped group gets its tenant. */
export function defaultNamespace(request: AdmissionRequest, context: WebhookContext): Verdict {
  const { label } = context.tenancy;
  const namespace = request.object as V1Namespace | undefined;
  if (request.operation !== 'CREATE' || !namespace || tenantOf(namespace, label) !== undefined) return allow();
  const tenant = mappedTenant(request, context.tenancy);
  if (tenant === undefined) return allow();
  const patch: JsonPatchOperation[] = namespace.metadata?.labels
    ? [{ op: 'add', path: `/metadata/labels/${pointer(label)}`, value: tenant }]
    : [{ op: 'add', path: '/metadata/labels', value: { [label]: tenant } }];
  return { allowed: true, patch };
}

/**
 * Only privileged principals set, change or remove a namespace's tenancy label: it is what identities'
 * allowedNamespaces selectors and account ownership trust. A member of a mapped group may create a
 * namespace labelled with its own tenant (what defaultNamespace sets). Kubernetes' and the
 * controller's own namespaces carry none, whoever asks. The Namespace object, its /status and its
 * /finalize are checked alike: kube-apiserver keeps label changes made through either subresource.
 */
export function validateNamespace(request: AdmissionRequest, context: WebhookContext): Verdict {
  const { label } = context.tenancy;
  if (request.operation === 'DELETE') return allow();
  const before = tenantOf(request.oldObject, label);
  const after = tenantOf(request.object, label);
  if (before === after) return allow();
  const name = request.name ?? '';
  if (after !== undefined && [...SYSTEM_NAMESPACES, context.controllerNamespace].includes(name))
    return deny(
      403,
      `namespace ${name} may not carry the label ${label}: it is Kubernetes' or Keymaster's own, never a tenant's. ` +
        "Put tenants' AWSClusters and AWSCredentialsRequests in namespaces of their own",
    );
  if (request.operation === 'CREATE' && after === mappedTenant(request, context.tenancy)) return allow();
  const change =
    before === undefined
      ? `set the label ${label}=${after ?? ''}`
      : after === undefined
        ? `remove the label ${label}`
        : `change the label ${label} from ${before} to ${after}`;
  const privilege = privilegeOf(request, context.privileged);
  if (privilege !== undefined) {
    context.logger.info('tenancy label changed by a privileged principal', {
      user: request.userInfo.username,
      privilege,
      namespace: name,
      ...(request.subResource ? { subresource: request.subResource } : {}),
      from: before,
      to: after,
    });
    return allow();
  }
  const path = request.subResource ? ` (through namespaces/${request.subResource})` : '';
  return deny(
    403,
    `${request.userInfo.username ?? 'this user'} may not ${change} on namespace ${name}${path}: ` +
      'only the platform team (privileged users and groups of keymaster run) sets the tenant of a namespace',
  );
}
