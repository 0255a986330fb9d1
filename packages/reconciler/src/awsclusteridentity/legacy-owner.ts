import type { V1OwnerReference } from '@kubernetes/client-node';
import { API_VERSION } from '@keymaster/api';

/**
 * Releases before this one made each static identity an owner of its Secret (for clusterctl move),
 * so that deleting the identity let the garbage collector delete the keys. Returns the Secret's
 * owners without that reference, or undefined when it has none. Only exactly what those releases
 * wrote matches: our API version, the kind, the identity's name, and neither `controller` nor
 * `blockOwnerDeletion` (they never set them); anyone else's reference stays.
 */
export function withoutLegacyOwner(
  owners: readonly V1OwnerReference[],
  identityName: string,
  identityKind = 'AWSClusterStaticIdentity',
): V1OwnerReference[] | undefined {
  const ours = (owner: V1OwnerReference) =>
    owner.apiVersion === API_VERSION &&
    owner.kind === identityKind &&
    owner.name === identityName &&
    owner.controller === undefined &&
    owner.blockOwnerDeletion === undefined;
  return owners.some(ours) ? owners.filter((owner) => !ours(owner)) : undefined;
}
