import type { AWSCluster } from '@keymaster/api';
import { checkChain, CONTROLLER_IDENTITY, NamespaceNotAllowedError } from '@keymaster/identity';
import { describeObject } from '@keymaster/tagging';
import { bypassed, explain, schemaProblems, specUnchanged, tagProblems } from './checks.js';
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
  const problems = links.flatMap((link) => link.problems);
  const refusals = problems.filter((problem) => problem instanceof NamespaceNotAllowedError).map(explain);
  // Everything else (a missing identity, a Secret not there yet) may be fixed after the cluster is applied.
  const warnings = problems.filter((problem) => !(problem instanceof NamespaceNotAllowedError)).map(explain);
  if (refusals.length === 0) return allow(warnings);
  const refusal = refusals.join('; ');
  if (bypassed(request, context.privileged, context.logger, refusal)) {
    return allow([...warnings, `allowed as a privileged principal although ${refusal}`]);
  }
  return deny(403, refusal, warnings);
}
