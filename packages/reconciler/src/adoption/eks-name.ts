import { blake2b } from './blake2b.js';

/** CAPA's bound on the EKS cluster names it makes up (controlplane/eks/webhooks, maxClusterNameLength). */
const MAX_EKS_NAME_LENGTH = 100;
/** What CAPA's hashed names start with (pkg/eks, resourcePrefix); they are 32 characters in all. */
const HASHED_PREFIX = 'capa_';
const HASHED_LENGTH = 32;
const BASE36 = '0123456789abcdefghijklmnopqrstuvwxyz';

/**
 * The EKS cluster name CAPA's defaulting webhook gives an AWSManagedControlPlane without
 * spec.eksClusterName (pkg/eks GenerateEKSName, v2.13): `<namespace>_<name>` with the name's dots
 * made `_`, or, from 100 characters on, `capa_` and a base-36 BLAKE2b digest of that name.
 * Computed here because no webhook of CAPA's may run (its manager down, or a test's API server).
 */
export function defaultEksClusterName(controlPlaneName: string, namespace: string): string {
  const name = `${namespace}_${controlPlaneName.replaceAll('.', '_')}`;
  if (name.length < MAX_EKS_NAME_LENGTH) return name;
  const digest = blake2b(new TextEncoder().encode(name), HASHED_LENGTH - HASHED_PREFIX.length);
  return HASHED_PREFIX + Array.from(digest, (byte) => BASE36[byte % 36]).join('');
}
