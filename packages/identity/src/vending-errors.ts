import { CredentialFailureReason } from '@keymaster/api';
import { IdentityError, type LinkName } from './errors.js';

const linkName = (link: LinkName) => `${link.kind}/${link.name}`;

/** The request's identity gives keys no session policy can narrow: writing them out would be passthrough. */
export class PassthroughRefusedError extends IdentityError {
  constructor(link: LinkName) {
    super(
      'ERR_KEYMASTER_PASSTHROUGH_REFUSED',
      // Kind-neutral, and naming no Secret: the request's tenant may not read identities.
      `${linkName(link)} cannot be narrowed: its credentials are no role session (long-lived keys or the controller's own), which take no session policy, and writing them into a tenant's Secret would be passthrough`,
      {
        hint: 'Point spec.identityRef at a role identity (AWSClusterRoleIdentity, which may use this identity as its sourceIdentityRef) or a web identity: the credentials are then a session of that role, narrowed by the request.',
        link,
        reason: CredentialFailureReason.PassthroughRefused,
        usageChecked: true,
      },
    );
  }
}

/**
 * An identity whose sessions are not vended to the request's namespace: the namespace may use the
 * identity (allowedNamespaces), but not take its credentials into a Secret. The request's
 * PrincipalUsageAllowed is False with `reason`, and nothing is asked of AWS.
 */
export abstract class VendingRefusedError extends IdentityError {}

/** The identity has no credentialVending: it vends to no namespace (vending is opt-in per identity). */
export class VendingNotEnabledError extends VendingRefusedError {
  constructor(link: LinkName, namespace: string) {
    super(
      'ERR_KEYMASTER_VENDING_NOT_ENABLED',
      `${linkName(link)} vends no credentials to workloads: its spec.credentialVending is not set`,
      {
        hint: `For namespace "${namespace}" to ask for its credentials, ops add it to spec.credentialVending.allowedNamespaces of ${linkName(link)} (credentialVending: {allowedNamespaces: {list: [${namespace}]}}, or a selector); or point spec.identityRef at an identity that vends to "${namespace}".`,
        link,
        reason: CredentialFailureReason.VendingNotEnabled,
        usageChecked: true,
      },
    );
  }
}

/** The identity vends, but its credentialVending.allowedNamespaces does not allow the request's namespace. */
export class VendingNamespaceNotAllowedError extends VendingRefusedError {
  constructor(link: LinkName, namespace: string) {
    super(
      'ERR_KEYMASTER_VENDING_NAMESPACE_NOT_ALLOWED',
      `namespace "${namespace}" may not ask for credentials of ${linkName(link)}: its spec.credentialVending.allowedNamespaces does not allow it`,
      {
        hint: `Ops: add "${namespace}" to spec.credentialVending.allowedNamespaces of ${linkName(link)} (list or selector), or point spec.identityRef at an identity that vends to "${namespace}".`,
        link,
        reason: CredentialFailureReason.VendingNamespaceNotAllowed,
        usageChecked: true,
      },
    );
  }
}

/**
 * The identity is the sourceIdentityRef of other identities (a hub). Its session assumes the roles
 * built on it, so handing it to one tenant hands over every tenant role it may assume.
 */
export class SourceIdentityNotVendableError extends VendingRefusedError {
  constructor(link: LinkName, sourceOf: number) {
    super(
      'ERR_KEYMASTER_SOURCE_IDENTITY_NOT_VENDABLE',
      `${linkName(link)} is the sourceIdentityRef of ${sourceOf} other ${sourceOf === 1 ? 'identity' : 'identities'}: the session of an identity that others are made from is never vended, whatever its credentialVending says`,
      {
        hint: `Point spec.identityRef at an identity of this namespace's own (a tenant role built on ${linkName(link)}, with credentialVending allowing this namespace), never at the source of others. To vend ${linkName(link)} itself, ops must first make it the source of no identity.`,
        link,
        reason: CredentialFailureReason.SourceIdentityNotVendable,
        usageChecked: true,
      },
    );
  }
}

/** A web identity whose token is of the controller's namespace: a platform identity, never a tenant's. */
export class ControllerNamespaceTokenNotVendableError extends VendingRefusedError {
  constructor(link: LinkName) {
    super(
      'ERR_KEYMASTER_CONTROLLER_NAMESPACE_TOKEN_NOT_VENDABLE',
      `${linkName(link)} takes its token in the controller's namespace (spec.serviceAccount.namespace: Controller): its sessions are the platform's and are never vended, in any mode, whatever its credentialVending says`,
      {
        hint: "Ops: give this namespace a web identity whose serviceAccount.namespace is Cluster (its role's trust policy naming this namespace's ServiceAccount), with credentialVending allowing the namespace, and point spec.identityRef at it.",
        link,
        reason: CredentialFailureReason.ControllerNamespaceTokenNotVendable,
        usageChecked: true,
      },
    );
  }
}
