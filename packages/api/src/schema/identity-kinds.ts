/**
 * The identity kinds, the one list of their names: `identityRef` enums, the generated `IdentityObject`
 * union and the controller's RBAC rules come from it. Each has its definition in identities.ts (a test
 * holds the two equal) and its provider in @keymaster/identity.
 */
export const IDENTITY_KINDS = [
  'AWSClusterControllerIdentity',
  'AWSClusterStaticIdentity',
  'AWSClusterRoleIdentity',
  'AWSClusterWebIdentity',
] as const;
