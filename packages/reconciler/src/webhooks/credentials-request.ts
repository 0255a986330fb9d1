import type { AWSCredentialsRequest } from '@keymaster/api';
import {
  checkChain,
  NamespaceNotAllowedError,
  PassthroughRefusedError,
  VendingRefusedError,
  type IdentityError,
} from '@keymaster/identity';
import { chainVerdict, schemaProblems, specUnchanged } from './checks.js';
import type { WebhookContext } from './context.js';
import { allow, deny, type AdmissionRequest, type Verdict } from './review.js';

/** What the controller would refuse the request for, whatever happens later: its chain or its identity's vending. */
const refuses = (problem: IdentityError): boolean =>
  problem instanceof NamespaceNotAllowedError ||
  problem instanceof VendingRefusedError ||
  problem instanceof PassthroughRefusedError;

/**
 * An AWSCredentialsRequest refused before it is stored, with the words its conditions would use: the
 * schema (422), a chain that does not allow its namespace, and an identity that does not vend to it
 * (not opted in, a hub, a web identity of the controller's namespace: 403; privileged principals may
 * bypass it). A missing identity is only a warning, so that `kubectl apply -f dir/` works in any order.
 */
export async function validateCredentialsRequest(request: AdmissionRequest, context: WebhookContext): Promise<Verdict> {
  if (request.operation === 'DELETE' || specUnchanged(request)) return allow();
  const invalid = schemaProblems(request);
  if (invalid.length > 0) return deny(422, invalid.join('; '));
  const links = await checkChain(context.store, {
    namespace: request.namespace ?? '',
    identityRef: (request.object as AWSCredentialsRequest).spec.identityRef,
    controllerNamespace: context.controllerNamespace,
    vending: true,
  });
  return chainVerdict(
    request,
    context,
    links.flatMap((link) => link.problems),
    refuses,
  );
}
