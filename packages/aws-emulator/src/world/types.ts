import type { PolicyDocument } from '../iam/policy.js';
import type { QuotaSettings } from '../quotas/settings.js';

/**
 * The world the emulator starts from: accounts with their IAM users, roles, managed policies and
 * taggable resources. This is the shape of the world file (YAML or JSON) after validation; see
 * docs/emulators/aws-emulator.md.
 */
export interface World {
  readonly accounts: readonly AccountSpec[];
  /** AWS's request quotas: `aws` (the default), `off`, or numbers that replace some buckets' (by quota name). */
  readonly quotas?: QuotaSettings;
}

export interface AccountSpec {
  /** The 12-digit account ID. */
  readonly id: string;
  readonly users?: readonly UserSpec[];
  readonly roles?: readonly RoleSpec[];
  readonly policies?: readonly ManagedPolicySpec[];
  readonly resources?: readonly ResourceSpec[];
  /** IAM OIDC identity providers: the issuers whose tokens AssumeRoleWithWebIdentity accepts in this account. */
  readonly oidcProviders?: readonly OidcProviderSpec[];
}

/**
 * An IAM OIDC identity provider (`arn:aws:iam::<account>:oidc-provider/<host and path of url>`). Its
 * keys come from `jwks`, else from the issuer's discovery document, fetched on first use.
 */
export interface OidcProviderSpec {
  /** The issuer: an https URL, the `iss` of its tokens. */
  readonly url: string;
  /** The audiences (`aud`) accepted, 1-100 of them. */
  readonly clientIds: readonly string[];
  /** SHA-1 thumbprints (40 hex digits) of the top certificate of the key server's chain; unchecked when none. */
  readonly thumbprints?: readonly string[];
  /** Where to read the discovery document, and the CA to trust for it and the key set (PEM). */
  readonly discovery?: OidcDiscoverySpec;
  /** The key set itself (`{"keys": [...]}`), instead of fetching it. */
  readonly jwks?: unknown;
}

export interface OidcDiscoverySpec {
  /** `<url>/.well-known/openid-configuration` by default. */
  readonly url?: string;
  /** PEM certificates to trust over HTTPS besides the system's (a test cluster's own CA). */
  readonly ca?: string;
}

export interface AccessKeySpec {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

export interface UserSpec {
  readonly name: string;
  readonly accessKeys?: readonly AccessKeySpec[];
  /** IAM action patterns this user may call on any resource (`sts:AssumeRole`, `tag:*`). */
  readonly allow?: readonly string[];
  /** ARNs of managed policies (from some account's `policies`) attached to the user. */
  readonly policies?: readonly string[];
}

/** One statement of a role's trust policy: an AWS principal (AssumeRole) or a federated one (AssumeRoleWithWebIdentity). */
export interface TrustSpec {
  /** Who may assume the role: a user, role or assumed-role session ARN, an account root ARN, a bare account ID, or `*`. */
  readonly principal?: string;
  /** `Federated`: the ARN of an OIDC provider of the role's account, whose tokens may assume the role. */
  readonly federated?: string;
  /** When set, AssumeRole must pass exactly this ExternalId (the `sts:ExternalId` condition). */
  readonly externalId?: string;
  /**
   * The trusted actions: `sts:AssumeRole` (the default for a principal), `sts:AssumeRoleWithWebIdentity`
   * (the default for a federated principal) and, to allow session tags, `sts:TagSession`.
   */
  readonly actions?: readonly string[];
  /** A federated statement's IAM Condition block, on `<provider host/path>:sub` and `:aud` (`StringEquals`, `StringLike`, ...). */
  readonly conditions?: unknown;
}

export interface RoleSpec {
  readonly name: string;
  /** The longest session AssumeRole may ask for, 3600 to 43200 seconds; 3600 when absent. */
  readonly maxSessionDuration?: number;
  readonly trust?: readonly TrustSpec[];
  readonly allow?: readonly string[];
  readonly policies?: readonly string[];
}

export interface ManagedPolicySpec {
  /** `arn:aws:iam::<account>:policy/<name>`, in the account that holds it. */
  readonly arn: string;
  /** An IAM policy document (`Version`, `Statement` with Effect, Action/NotAction, Resource/NotResource, Condition). */
  readonly document: unknown;
}

export interface ResourceSpec {
  /** The resource's ARN, with the holding account and a region. */
  readonly arn: string;
  readonly tags?: Readonly<Record<string, string>>;
}

/** A managed policy after validation, its document compiled. */
export interface ManagedPolicy {
  readonly arn: string;
  readonly document: PolicyDocument;
}
