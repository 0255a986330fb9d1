import type { AWSCluster } from '@keymaster/api';
import { checkChain, CONTROLLER_IDENTITY, NamespaceNotAllowedError } from '@keymaster/identity';
import { describeObject, resolveEffectiveTags, tagLayers, tagPoliciesOf } from '@keymaster/tagging';
import { LIMITS } from '@keymaster/api';
import { chainVerdict, schemaProblems, specUnchanged, tagProblems } from './checks.js';
import type { WebhookContext } from './context.js';
import { allow, deny, type AdmissionRequest, type Verdict } from './review.js';

/** Defaulting, as CAPA's: an AWSCluster without identityRef acts as the controller identity `default`. */
export function defaultAWSCluster(request: AdmissionRequest): Verdict {
  const cluster = request.object as AWSCluster | undefined;
  if (request.operation !== 'CREATE' || !cluster?.spec || cluster.spec.identityRef) return allow();
  return { allowed: true, patch: [{ op: 'add', path: '/spec/identityRef', value: CONTROLLER_IDENTITY }] };
}

/**
 * An AWSCluster refused before it is stored, with the words its conditions would use: the schema and
 * the full tag rules (422), and a chain that does not allow its namespace (403; privileged principals
 * may bypass it). A missing identity is only a warning, so that `kubectl apply -f dir/` works in any order.
 * Updates that leave the spec alone (finalizers, labels) are never refused.
 */
export async function validateAWSCluster(request: AdmissionRequest, context: WebhookContext): Promise<Verdict> {
  if (request.operation === 'DELETE' || specUnchanged(request)) return allow();
  const cluster = request.object as AWSCluster;
  const invalid = [
    ...schemaProblems(request),
    ...tagProblems(
      Object.entries(cluster.spec.additionalTags ?? {}).map(([key, value]) => ({ key, value })),
      { layer: 'Cluster', object: describeObject(cluster) },
    ),
  ];
  if (invalid.length > 0) return deny(422, invalid.join('; '));
  const links = await checkChain(context.store, {
    namespace: request.namespace ?? '',
    identityRef: cluster.spec.identityRef,
    controllerNamespace: context.controllerNamespace,
  });
  return chainVerdict(
    request,
    context,
    links.flatMap((link) => link.problems),
    (problem) => problem instanceof NamespaceNotAllowedError,
    [...(await tagBudgetWarning(cluster, links, context)), ...otherNamespaceWarning(request, cluster)],
  );
}

/** CAPA's default name of an EKS cluster: `<namespace>_<name>`. */
const CAPA_EKS_NAME = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)_/;

/**
 * A clusterName in CAPA's EKS form naming another namespace is likely another tenant's EKS cluster:
 * told at creation (clusterName is immutable), not refused, since an EKS name is free to look so.
 */
function otherNamespaceWarning(request: AdmissionRequest, cluster: AWSCluster): string[] {
  const prefix = CAPA_EKS_NAME.exec(cluster.spec.clusterName ?? '')?.[1];
  if (request.operation !== 'CREATE' || prefix === undefined || prefix === request.namespace) return [];
  return [
    `spec.clusterName "${cluster.spec.clusterName}" has the form of CAPA's EKS name of a cluster of namespace ` +
      `${prefix}, not ${request.namespace ?? ''}: if that EKS cluster is another tenant's, its AWSCluster owns the ` +
      "name and this one makes no AWS write (ClusterNameClaimed). Name this cluster's own EKS cluster " +
      '(AWSManagedControlPlane.spec.eksClusterName).',
  ];
}

/** What every resource carries besides the layers' keys: its ownership tag (Keymaster adds none of its own). */
const RESERVED_SLOTS = 1;

/**
 * AWS's 50-tag budget: the keys the layers give this cluster (global, the policies that select it,
 * every link of its chain, its own), with the tags every resource carries anyway, over 50 is a
 * warning (the controller withholds the excess, reason TagLimit) rather than a refusal: what is left
 * depends on each resource's other tags.
 */
async function tagBudgetWarning(
  cluster: AWSCluster,
  links: Awaited<ReturnType<typeof checkChain>>,
  context: WebhookContext,
): Promise<string[]> {
  const identities = links.flatMap((link) => (link.identity ? [link.identity] : []));
  const namespace = await context.store.getNamespace(cluster.metadata.namespace ?? '');
  const policies = tagPoliciesOf(context.tagPolicies(), cluster, namespace?.labels ?? {});
  const effective = resolveEffectiveTags(tagLayers({ ...policies, identities, cluster }));
  const keys = Object.keys(effective.tags).length;
  if (keys + RESERVED_SLOTS <= LIMITS.tagsPerResource) return [];
  return [
    `the tag layers give this cluster ${keys} keys; with the ownership tag ` +
      `that is over AWS's ${LIMITS.tagsPerResource} tags per resource: the keys beyond are withheld ` +
      '(TagLimit). Drop some additionalTags, or account or global tags.',
  ];
}
