import { CredentialFailureReason, displayText, KeymasterError, type IdentityLink } from '@keymaster/api';
import { refusesInput } from './aws-codes.js';

/** Which identity in a chain, for messages: `AWSClusterRoleIdentity/tenant-b`. */
export interface LinkName {
  /** Set for another group's identity (CAPA's): `AWSClusterRoleIdentity.infrastructure.cluster.x-k8s.io/x`. */
  apiGroup?: string;
  kind: string;
  name: string;
}

export const linkName = (link: LinkName) =>
  link.apiGroup ? `${link.kind}.${link.apiGroup}/${link.name}` : `${link.kind}/${link.name}`;
/** Where a link at `depth` is, for a message: nothing for the cluster's own identity. */
const linkPosition = (depth: number) =>
  depth === 0 ? '' : ` (link ${depth + 1} of the chain, a source of the cluster's identity)`;

/**
 * Base of every identity error; `code` is stable, `link` names the identity at fault when there is one.
 * Message and hint hold names from specs and AWS's words: their unsafe characters are escaped here.
 */
export class IdentityError extends KeymasterError {
  readonly link: LinkName | undefined;
  /** `Kind/name` of every identity and `Secret/name` the failed resolve read or looked for. */
  dependsOn: string[] = [];
  /**
   * The chain as far as the failed resolve checked it, the cluster's own identity first: the links
   * that allowed the namespace, then the one at fault (missing, refusing, invalid) by kind and name.
   */
  chain: IdentityLink[] = [];
  /** The reason of the cluster's PrincipalCredentialRetrieved condition. */
  readonly reason: CredentialFailureReason;
  /**
   * Whether every link of the chain had allowed the namespace when this was thrown (the credentials
   * are made only then): PrincipalUsageAllowed stays True. Otherwise it is Unknown.
   */
  readonly usageChecked: boolean;
  /** Whether trying again later may help without anyone changing anything (AWS or network trouble). */
  readonly transient: boolean;

  constructor(
    code: `ERR_KEYMASTER_${string}`,
    message: string,
    options: {
      hint: string;
      link?: LinkName;
      cause?: unknown;
      reason: CredentialFailureReason;
      usageChecked?: boolean;
      transient?: boolean;
    },
  ) {
    super(code, displayText(message), { hint: displayText(options.hint), cause: options.cause });
    this.link = options.link;
    this.reason = options.reason;
    this.usageChecked = options.usageChecked ?? false;
    this.transient = options.transient ?? false;
  }
}

export class IdentityNotFoundError extends IdentityError {
  constructor(link: LinkName, referencedBy: string) {
    super('ERR_KEYMASTER_IDENTITY_NOT_FOUND', `${linkName(link)} not found (referenced by ${referencedBy})`, {
      hint: `Create ${linkName(link)}, or point ${referencedBy} at an identity that exists.`,
      link,
      reason: CredentialFailureReason.IdentityNotFound,
    });
  }
}

export class NamespaceNotAllowedError extends IdentityError {
  /** 0 when the cluster's own identity refuses the namespace, more for a source deeper in the chain. */
  readonly depth: number;
  readonly namespace: string;

  /** `why`: words of a refusal more particular than the usual (CAPA's `{selector: {}}`). */
  constructor(link: LinkName, namespace: string, depth: number, why?: { message: string; hint: string }) {
    super(
      'ERR_KEYMASTER_NAMESPACE_NOT_ALLOWED',
      (why?.message ?? `namespace "${namespace}" may not use ${linkName(link)}`) + linkPosition(depth),
      {
        hint:
          why?.hint ??
          `Add "${namespace}" to spec.allowedNamespaces of ${linkName(link)} (list or selector), or use another identity. Every link of a chain must allow the namespace.`,
        link,
        reason:
          depth === 0
            ? CredentialFailureReason.PrincipalUsageUnauthorized
            : CredentialFailureReason.SourcePrincipalUsageUnauthorized,
      },
    );
    this.depth = depth;
    this.namespace = namespace;
  }
}

/** A link is being deleted and the cluster was not among its users when the deletion began. */
export class IdentityDeletingError extends IdentityError {
  /** 0 for the cluster's own identity, more for a source deeper in the chain. */
  readonly depth: number;

  constructor(link: LinkName, namespace: string, depth: number) {
    super(
      'ERR_KEYMASTER_IDENTITY_DELETING',
      `${linkName(link)}${linkPosition(depth)} is being deleted and accepts no new AWSClusters`,
      {
        hint: `Point spec.identityRef at another identity that allows namespace "${namespace}" (ask the platform team which replaces ${linkName(link)}): an identity being deleted serves only the AWSClusters that used it before its deletion began.`,
        link,
        reason: CredentialFailureReason.IdentityDeleting,
      },
    );
    this.depth = depth;
  }
}

/** Where an identity names a Secret of the controller's namespace, and what the Secret must hold: for messages. */
export interface SecretUse {
  /** The field that names the Secret: `spec.secretRef`. */
  field: string;
  /** What the Secret must hold, for the fix: `the keys AccessKeyID and SecretAccessKey`. */
  holds: string;
}

export class SecretNotFoundError extends IdentityError {
  constructor(link: LinkName, secret: string, use: SecretUse) {
    super('ERR_KEYMASTER_SECRET_NOT_FOUND', `Secret ${secret} of ${linkName(link)} (${use.field}) not found`, {
      hint: `Create the Secret ${secret} holding ${use.holds} (identities read Secrets in the controller's namespace only).`,
      link,
      reason: CredentialFailureReason.SecretNotFound,
      usageChecked: true,
    });
  }
}

/** The Secret is there, but lacks what the identity reads in it; `problems` name keys, never a value. */
export class SecretInvalidError extends IdentityError {
  readonly problems: string[];

  constructor(link: LinkName, secret: string, use: SecretUse, problems: string[]) {
    super(
      'ERR_KEYMASTER_SECRET_INVALID',
      `Secret ${secret} of ${linkName(link)} (${use.field}) is invalid: ${problems.join('; ')}`,
      {
        hint: `The Secret must hold ${use.holds}.`,
        link,
        reason: CredentialFailureReason.SecretInvalid,
        usageChecked: true,
      },
    );
    this.problems = problems;
  }
}

export class IdentityCycleError extends IdentityError {
  readonly cycle: LinkName[];

  constructor(cycle: LinkName[]) {
    super('ERR_KEYMASTER_IDENTITY_CYCLE', `identity chain has a cycle: ${cycle.map(linkName).join(' -> ')}`, {
      hint: 'Point one sourceIdentityRef of the cycle at an identity outside it (or omit it to use the controller identity).',
      link: cycle[0]!,
      reason: CredentialFailureReason.IdentityChainInvalid,
    });
    this.cycle = cycle;
  }
}

export class ChainTooDeepError extends IdentityError {
  constructor(chain: LinkName[], limit: number) {
    super(
      'ERR_KEYMASTER_IDENTITY_CHAIN_TOO_DEEP',
      `identity chain is longer than ${limit} links: ${chain.map(linkName).join(' -> ')} -> ...`,
      {
        hint: `Shorten the chain to at most ${limit} identities (the cluster's own identity included).`,
        link: chain[0]!,
        reason: CredentialFailureReason.IdentityChainInvalid,
      },
    );
  }
}

export class InvalidIdentityError extends IdentityError {
  readonly problems: string[];

  constructor(link: LinkName, problems: string[]) {
    super('ERR_KEYMASTER_IDENTITY_INVALID', `${linkName(link)} is invalid: ${problems.join('; ')}`, {
      hint: `Fix the fields named above in ${linkName(link)}; kubectl explain ${link.kind.toLowerCase()}.spec describes them.`,
      link,
      reason: CredentialFailureReason.IdentityChainInvalid,
    });
    this.problems = problems;
  }
}

/** An STS action (`sts:AssumeRole`), or `credentials` for a failure to obtain them before any call. */
export type CredentialAction =
  'sts:AssumeRole' | 'sts:AssumeRoleWithWebIdentity' | 'sts:GetCallerIdentity' | 'credentials';

/** `sts:AssumeRoleWithWebIdentity` -> `ASSUME_ROLE_WITH_WEB_IDENTITY`. */
const constantCase = (action: string) =>
  action
    .replace(/^sts:/, '')
    .replace(/([a-z])([A-Z])/g, '$1_$2')
    .toUpperCase();

/**
 * AWS refused a call made to obtain or check credentials; `awsCode` is AWS's error code. A refused
 * check (GetCallerIdentity) or set of keys is `CredentialsRejected`; a refused call that makes
 * credentials is named after it (`AssumeRoleFailed`, `ERR_KEYMASTER_ASSUME_ROLE_FAILED`). Only a
 * refusal of the call's input (session policies and tags too large once packed) is not transient.
 */
export class AwsCredentialError extends IdentityError {
  readonly awsCode: string;
  readonly action: CredentialAction;
  /** AWS refused what was asked, not who asked: the same call with the same input is refused again. */
  readonly inputRefused: boolean;

  constructor(link: LinkName, action: CredentialAction, awsCode: string, awsMessage: string, hint: string) {
    const rejected = action === 'sts:GetCallerIdentity' || action === 'credentials';
    const code = rejected
      ? 'ERR_KEYMASTER_CREDENTIALS_REJECTED'
      : (`ERR_KEYMASTER_${constantCase(action)}_FAILED` as const);
    const reason = rejected
      ? CredentialFailureReason.CredentialsRejected
      : action === 'sts:AssumeRole'
        ? CredentialFailureReason.AssumeRoleFailed
        : CredentialFailureReason.AssumeRoleWithWebIdentityFailed;
    // AWS is called only after every link allowed the namespace.
    super(code, `${action} for ${linkName(link)} failed: ${awsCode}: ${awsMessage}`, {
      hint,
      link,
      reason,
      usageChecked: true,
      transient: !refusesInput(awsCode),
    });
    this.awsCode = awsCode;
    this.action = action;
    this.inputRefused = !this.transient;
  }
}

/** What to check when AWS could not be reached, whoever's credentials were in use. */
const UNREACHABLE_HINT =
  "The credentials were not refused: the controller could not reach AWS. Check the controller pod's egress (NetworkPolicy, firewall, NAT or VPC endpoint), its proxy (HTTPS_PROXY, NO_PROXY), the endpoint override (AWS_ENDPOINT_URL, AWS_ENDPOINT_URL_STS, --sts-region) and DNS; the controller retries with backoff.";

/** A call made to obtain or check credentials never reached AWS: DNS, connection, TLS or time-out. */
export class AwsUnreachableError extends IdentityError {
  readonly action: CredentialAction;
  /** The host (or address:port) that could not be reached. */
  readonly endpoint: string;

  constructor(link: LinkName, action: CredentialAction, endpoint: string, reason: string, cause?: unknown) {
    super(
      'ERR_KEYMASTER_AWS_UNREACHABLE',
      `${action} for ${linkName(link)} failed: AWS endpoint ${endpoint} unreachable: ${reason}`,
      {
        hint: UNREACHABLE_HINT,
        link,
        cause,
        reason: CredentialFailureReason.AWSUnreachable,
        usageChecked: true,
        transient: true,
      },
    );
    this.action = action;
    this.endpoint = endpoint;
  }
}

/**
 * The controller's own credentials (the SDK's default chain in its pod) could not be loaded: every
 * cluster whose chain starts from AWSClusterControllerIdentity fails, whatever its tenant did.
 */
export class ControllerCredentialsError extends IdentityError {
  constructor(reason: string, cause?: unknown) {
    super(
      'ERR_KEYMASTER_CONTROLLER_CREDENTIALS_UNAVAILABLE',
      `the controller's own AWS credentials could not be loaded: ${reason}`,
      {
        hint: "These are the controller's credentials, not the tenant's: give the controller's pod a source of the AWS SDK's default chain (IRSA: the eks.amazonaws.com/role-arn annotation on its ServiceAccount; EKS Pod Identity: an association for its ServiceAccount; or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in its environment). The controller logs at start which source it found (keymaster_controller_credentials, condition CredentialsAvailable of AWSClusterControllerIdentity/default).",
        link: { kind: 'AWSClusterControllerIdentity', name: 'default' },
        cause,
        reason: CredentialFailureReason.ControllerCredentialsUnavailable,
        usageChecked: true,
        transient: true,
      },
    );
  }
}
