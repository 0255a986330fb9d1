import { isNamespacedKind, type LinkName } from '@keymaster/identity';
import type { Request } from '../runtime/controller.js';

/** An identity as its controller is told of it: a namespaced kind's with the namespace of the cluster that reached it. */
export interface IdentityAt extends LinkName {
  namespace?: string;
}

/** The work-queue request of an identity: a namespaced kind's has its namespace, others none. */
export const identityRequest = ({ kind, name, namespace }: IdentityAt): Request =>
  isNamespacedKind(kind) ? { namespace: namespace ?? '', name } : { name };
