/**
 * What the API itself must know of an identity kind, to write its rules (CEL) without naming it. The
 * rest of what Keymaster knows of a kind is its provider's (@keymaster/identity), whose type holds it
 * to these facts.
 */
export interface IdentityKindFacts {
  /**
   * Its credentials are an STS role session: a session policy narrows them (so they may be vended to
   * workloads), and a role assumed with them is chained (AWS caps that session at one hour).
   */
  readonly roleSession: boolean;
  /** Workloads may assume its role with their own ServiceAccount token (AWSCredentialsRequest's WebIdentity mode). */
  readonly workloadWebIdentity: boolean;
}

/**
 * The identity kinds, declared once: `identityRef` enums, the generated `IdentityObject` union, the
 * controller's RBAC rules and the rules below come from it. Each has its definition in identities.ts
 * and its provider in @keymaster/identity (tests hold all three to the same kinds).
 */
export const IDENTITY_KIND_FACTS = {
  AWSClusterControllerIdentity: { roleSession: false, workloadWebIdentity: false },
  AWSClusterStaticIdentity: { roleSession: false, workloadWebIdentity: false },
  AWSClusterRoleIdentity: { roleSession: true, workloadWebIdentity: false },
  AWSClusterWebIdentity: { roleSession: true, workloadWebIdentity: true },
  AWSServiceAccountIdentity: { roleSession: true, workloadWebIdentity: true },
} as const satisfies Record<string, IdentityKindFacts>;

type IdentityKindName = keyof typeof IDENTITY_KIND_FACTS;

/** The identity kinds' names, in the order the docs and CRDs list them. */
export const IDENTITY_KINDS = Object.keys(IDENTITY_KIND_FACTS) as readonly IdentityKindName[];

/** The kinds of which a fact holds, as a CEL list for schema rules: `['AWSClusterRoleIdentity', ...]`. */
export const celKindsWith = (fact: keyof IdentityKindFacts): string =>
  `[${IDENTITY_KINDS.filter((kind) => IDENTITY_KIND_FACTS[kind][fact])
    .map((kind) => `'${kind}'`)
    .join(', ')}]`;
