import type { STSClient } from '@aws-sdk/client-sts';
import type {
  ConditionUpdate,
  IDENTITY_KIND_FACTS,
  IdentityLink,
  IdentityObject,
  IdentityReference,
  SessionPolicy,
} from '@keymaster/api';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import type { ControllerCredentialsCheck } from '../controller-credentials.js';
import type { IdentityError, LinkName } from '../errors.js';
import type { IdentityStore } from '../store.js';

/** Obtains a fresh set of credentials for one link; RefreshingCredentials decides when. */
export type CredentialSource = () => Promise<AwsCredentialIdentity>;

/** One identity of a resolved chain, with what its provider read for it when the chain was walked. */
export interface ChainLink<I extends IdentityObject = IdentityObject> {
  kind: I['kind'];
  name: string;
  identity: I;
  /** What `load` returned (static identities: the keys of their Secret). Never logged. */
  material?: unknown;
}

/** Where a link is walked: for `load`, which may read the store and refuse. */
export interface LoadContext {
  ref: LinkName;
  store: IdentityStore;
  controllerNamespace: string;
  /** Where the link's Secrets are: the controller's namespace, or CAPA's for CAPA's identities. */
  secretNamespace: string;
}

/** What a link's credentials may be made with. */
export interface CredentialContext {
  /** The namespace of the AWSCluster asking. */
  namespace: string;
  controllerNamespace: string;
  /** The controller's own credentials. */
  controllerCredentials: AwsCredentialIdentityProvider;
  /** An STS client that signs with the source link's live credentials (kinds with a source only). */
  sourceSts(): STSClient;
  /** An STS client that signs nothing, for calls AWS takes unsigned (AssumeRoleWithWebIdentity). */
  unsignedSts(): STSClient;
  /** Requests ServiceAccount tokens (the Kubernetes TokenRequest API). */
  serviceAccountTokens: ServiceAccountTokens;
  /** The STS endpoint, for messages when a call never reached it. */
  stsEndpoint: string;
  /** Told about every STS call made to obtain credentials, with AWS's error on failure. */
  stsCall(action: string, error?: Error): void;
}

/** The Kubernetes TokenRequest API, as the controller may use it: a token, and nothing else of ServiceAccounts. */
export interface ServiceAccountTokens {
  /** A token of `namespace/name` for one audience, valid for `expirationSeconds` (never logged). */
  request(
    namespace: string,
    name: string,
    audience: string,
    expirationSeconds: number,
  ): Promise<{ token: string; expiresAt: Date }>;
}

/** What the identity reconciler saw of an identity, for its status. */
export interface Observed {
  /** When its credentials were last obtained (by any cluster). */
  renewedAt?: Date | undefined;
  /** The start-up check of the controller's own credentials, once done. */
  controllerCredentials?: ControllerCredentialsCheck | undefined;
}

/** A condition an identity's status carries besides the controller's counts. */
/**
 * Everything Keymaster knows of one identity kind: where its credentials come from, what they
 * depend on, and how it shows. One per kind (`PROVIDERS`); the resolver, the chain walk, the cache key
 * and the reconciler ask the provider and never name a kind.
 */
export interface IdentityProvider<I extends IdentityObject, M = undefined> {
  readonly kind: I['kind'];
  /** Whether making its credentials calls STS: such calls are charged to the asking namespace's STS budget. */
  readonly callsSts: boolean;
  /** The identity whose credentials make this one's (a role's sourceIdentityRef), or undefined for a root. */
  source(identity: I): IdentityReference | undefined;
  /**
   * Secrets of the controller's namespace its credentials are made from: watched (a change renews the
   * credentials of every cluster reaching it) and counted in `dependsOn` as `Secret/<name>`.
   */
  secrets(identity: I): string[];
  /**
   * Reads what the credentials need besides the identity, when the chain is walked (after every
   * check of the link): throws an IdentityError to refuse the link. Never returned to callers.
   */
  load?(identity: I, context: LoadContext): Promise<M>;
  /**
   * What the credentials depend on, and nothing else, for the cache key: never a secret (a digest of
   * one at most). allowedNamespaces and resourceTags shape no credentials and belong to none.
   */
  credentialInputs(link: ChainLink<I> & { material?: M }, namespace: string, controllerNamespace: string): unknown;
  /** Makes the link's credentials (called once per credential set, then on every renewal). */
  credentials(link: ChainLink<I> & { material?: M }, context: CredentialContext): CredentialSource;
  /**
   * Kinds whose sessions may be vended to workloads (AWSCredentialsRequest): role sessions, which a
   * session policy narrows. Absent: never vended (the controller's own credentials, long-lived keys:
   * handing them out would be passthrough). `vendingProblems` decides for each identity and namespace.
   */
  vending?: Vending<I, M>;
  /** What status.identityChain shows of the link beside kind and name. */
  linkDetails(identity: I): Omit<IdentityLink, 'kind' | 'name'>;
  /** What the identity acts with, for people (`keymaster explain`). */
  actsWith(identity: I): string;
  /** What works but should change (a role's externalID in its spec), each naming the identity: warned at admission. */
  warnings(identity: I): string[];
  /** Its status beyond the counts, account and principal: conditions and times of its own. */
  status(identity: I, observed: Observed): { conditions?: ConditionUpdate[]; lastAssumeRoleTime?: string };
}

/** What a kind whose sessions may be vended says of them. */
export interface Vending<I extends IdentityObject, M = undefined> {
  /**
   * The link's credentials with a request's session policy and duration instead of its own
   * (`checkNarrowing` decides when that only narrows).
   */
  narrowed(link: ChainLink<I> & { material?: M }, context: CredentialContext, session: SessionPolicy): CredentialSource;
  /**
   * Why this identity is never vended, whatever its credentialVending says (a web identity whose token
   * is of the controller's namespace: its sessions are the platform's), or undefined.
   */
  refusal?(identity: I, link: LinkName): IdentityError | undefined;
  /**
   * What a workload's AWS config names to assume the role itself, with its own ServiceAccount token
   * (AWSCredentialsRequest's WebIdentity mode).
   */
  workloadConfig?(identity: I): WorkloadWebIdentity;
}

/** The role a workload assumes with its own ServiceAccount token, and its session name. */
export interface WorkloadWebIdentity {
  roleArn: string;
  sessionName: string;
}

type FactsOf<I extends IdentityObject> = (typeof IDENTITY_KIND_FACTS)[I['kind']];

/**
 * A kind's provider held to the kind's facts (IDENTITY_KIND_FACTS, the schema's): a role session is
 * vended and every other kind never is; a workload web identity says what workloads assume. A
 * provider that disagrees with its kind's facts fails to compile.
 */
export type KindProvider<I extends IdentityObject, M = undefined> = IdentityProvider<I, M> &
  (FactsOf<I>['roleSession'] extends true
    ? {
        vending: Vending<I, M> &
          (FactsOf<I>['workloadWebIdentity'] extends true
            ? Required<Pick<Vending<I, M>, 'workloadConfig'>>
            : { workloadConfig?: undefined });
      }
    : { vending?: undefined });
