import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import {
  checkCredentialsRequest,
  DEFAULT_MIN_RENEWAL_INTERVAL_MS,
  DEFAULT_RENEW_AT_PERCENT,
  InvalidCredentialsRequestError,
  sessionPolicyOf,
  type AWSCredentialsRequestSpec,
  type ClusterIdentityReference,
  type IdentityLink,
  type SessionPolicy,
} from '@keymaster/api';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import { credentialKey, digest } from './cache-key.js';
import { identityLink, MAX_CHAIN_LINKS, nameOf, resolveChain, type ChainLink } from './chain.js';
import { makeClient, type SdkClient, type SdkClientClass } from './clients.js';
import { CredentialSets, type NamespaceSets } from './credential-sets.js';
import { groupOf, identityId } from './identity-id.js';
import { providerOf } from './providers/index.js';
import type { CredentialContext, CredentialSource, ServiceAccountTokens } from './providers/provider.js';
import type { ClusterUser, UsersAtDeletion } from './deletion.js';
import { stsCallError, stsEndpoint } from './aws-failures.js';
import { defaultControllerCredentials } from './controller-credentials.js';
import { IdentityError, type LinkName } from './errors.js';
import { checkNarrowing, roleChained } from './narrowing.js';
import {
  RefreshingCredentials,
  renewalTime,
  type Clock,
  type SelfRefreshingProvider,
} from './refreshing-credentials.js';
import type { IdentityStore } from './store.js';
import { StsBudget, StsRateLimitedError, type StsRate } from './sts-budget.js';

/** The kind of object whose credentials an STS call was made for. */
export type Requester = 'AWSCluster' | 'AWSCredentialsRequest';

export interface ResolverObserver {
  /**
   * Every STS call made, with AWS's error code on failure, the kind of object whose credential set it
   * made (a chain's source links are shared, and counted for the kind that first needed them), and the
   * namespace it was charged to: the one whose resolve made it (a renewal the SDK asked for by itself:
   * the namespace that used the set last).
   */
  stsCall?(
    action: string,
    outcome: 'success' | 'error',
    awsCode: string | undefined,
    requester: Requester,
    namespace: string,
  ): void;
  /** Work of a namespace told to wait `waitMs` for its STS budget (no call was made). */
  stsWait?(namespace: string, waitMs: number): void;
  /** The credential sets a namespace's objects pin, or the unpinned ones kept for it, changed. */
  credentialSets?(namespace: string, sets: NamespaceSets): void;
  /** Every lookup of a link's credential set in the cache. */
  cacheLookup?(hit: boolean): void;
  /** A namespace's unpinned credential set was dropped for room (its next use assumes the role again). */
  credentialSetEvicted?(namespace: string): void;
  /** Every AWS call made by a session's clients (STS included): service, operation, AWS's code or `OK`. */
  awsCall?(service: string, operation: string, code: string): void;
}

export interface IdentityResolverOptions {
  store: IdentityStore;
  /** The controller's namespace: the only one static identities' Secrets are read from (CAPA's aside). */
  controllerNamespace: string;
  /** Where CAPA's static identities' Secrets are (`--capa-namespace`, default capa-system). */
  capaNamespace?: string;
  /** The controller's own credentials. Default: the AWS SDK's default chain. */
  controllerCredentials?: AwsCredentialIdentityProvider;
  /** The TokenRequest API, for web identities (the reconciler's is its API server's). */
  serviceAccountTokens?: ServiceAccountTokens;
  /** Endpoint for every AWS client (default: the SDK's, which honours AWS_ENDPOINT_URL) and the STS region. */
  aws?: { endpoint?: string; stsRegion?: string };
  clock?: Clock;
  /**
   * Credential sets kept per namespace that no AWSCluster or request pins (default 20, least recently
   * used first); pinned sets are never evicted for room.
   */
  maxUnpinnedSetsPerNamespace?: number;
  maxChainLinks?: number;
  /** Who used each identity being deleted when the controller first saw the deletion, if it remembers. */
  usersAtDeletion?: UsersAtDeletion;
  /** STS calls each namespace may make (a token bucket per namespace); absent, no bound. */
  stsRate?: StsRate;
  /**
   * A request's credentials are never renewed sooner than this after they were obtained, whatever its
   * renewAtPercent, unless they would otherwise enter their renewal window (default 5 minutes).
   */
  minRenewalIntervalMs?: number;
  observer?: ResolverObserver;
}

export interface ResolveRequest {
  /** The AWSCluster's namespace. */
  namespace: string;
  /** The AWSCluster's spec.identityRef (apiGroup CAPA's: CAPA's identity); absent means the controller identity "default". */
  identityRef?: ClusterIdentityReference | undefined;
  /** The default region of the session's clients. */
  region: string;
  /** The AWSCluster asking: identities being deleted serve only the clusters that used them before. */
  cluster?: ClusterUser;
  /** Who asks, for the STS call metrics (default AWSCluster). */
  requester?: Requester;
  /**
   * The session is vended to the namespace's workloads (an AWSCredentialsRequest in WebIdentity mode):
   * the identity must pass `vendingProblems` too, before any STS call.
   */
  vending?: boolean;
  /**
   * Who acts with the session (`AWSCluster/<namespace>/<name>`): its credential set and the set's
   * chain stay cached while it does, and what it acted with before is released. Absent: nobody.
   */
  holder?: string;
}

/** What a cluster may act with: refreshing credentials, who they are, and clients that use them. */
export interface IdentitySession {
  /** The credential set's cache key, shared by every cluster with the same chain. */
  key: string;
  accountId: string;
  principalArn: string;
  /** The resolved chain, the cluster's own identity first. */
  chain: IdentityLink[];
  /** Links of the chain being deleted: they serve this cluster, which used them before, and no new one. */
  deleting: LinkName[];
  /** `Kind/name` of every identity and `Secret/name` of every Secret the chain is made of. */
  dependsOn: string[];
  credentials: SelfRefreshingProvider;
  /** When the credentials were last obtained (for a role, the last successful AssumeRole). */
  renewedAt(): Date | undefined;
  /** A cached client of this session for a region (default: the request's region). */
  client<C extends SdkClient>(Client: SdkClientClass<C>, region?: string): C;
}

/** An AWSCredentialsRequest's identity and what its credentials may do. */
export interface NarrowedRequest {
  /** The request's namespace: every link must allow it. */
  namespace: string;
  spec: AWSCredentialsRequestSpec;
  /** Who acts with the session, as for `ResolveRequest.holder`. */
  holder?: string;
}

/** A role session narrowed by a request's session policy, shared by the requests of one namespace that ask alike. */
export interface NarrowedSession {
  /** The credential set's cache key: equal for requests of one namespace with the same identity and session policy. */
  key: string;
  accountId: string;
  principalArn: string;
  chain: IdentityLink[];
  /** `Kind/name` of every identity and `Secret/name` of every Secret the chain is made of. */
  dependsOn: string[];
  /**
   * The credentials, renewed first (once for every request sharing them) when the spec's
   * `renewAtPercent` of their lifetime had passed; `obtainedAt` is when STS was asked for them.
   */
  credentials: AwsCredentialIdentity;
  obtainedAt: Date;
  /** When they are renewed next: at `renewAtPercent`, but no sooner than the floor (`minRenewalIntervalMs`). */
  renewAt: Date;
}

interface CredentialSet {
  key: string;
  requester: Requester;
  /** The set whose credentials make this one's (a role's source), if any. */
  source: CredentialSet | undefined;
  /** The namespace of the latest resolve that used the set: renewals the SDK asks for by itself are charged to it. */
  namespace: string;
  /** This key and the keys of every source below it. */
  chainKeys: Set<string>;
  /** `Kind/name` of every identity and Secret the set depends on. */
  dependsOn: Set<string>;
  link: ChainLink;
  credentials: RefreshingCredentials;
  caller?: Promise<{ accountId: string; principalArn: string }>;
  /** The set's SDK clients by region and class: they live and go with the set, so they follow the fleet. */
  clients: Map<string, SdkClient>;
}

/** A link's `identityId`: a namespaced identity's namespace, and a CAPA identity's group, are in its object. */
const linkIdOf = ({ kind, name, identity }: ChainLink): string =>
  identityId(kind, name, identity.metadata.namespace, groupOf(identity));

const DEFAULT_STS_REGION = 'us-east-1';
const DEFAULT_MAX_UNPINNED_SETS_PER_NAMESPACE = 20;

/** Without a TokenRequest API, web identities fail naming what is missing. */
const NO_TOKENS: ServiceAccountTokens = {
  request: () =>
    Promise.reject(
      new Error('this resolver has no Kubernetes TokenRequest API (IdentityResolverOptions.serviceAccountTokens)'),
    ),
};

/**
 * Turns AWSClusters' identityRefs into sessions. Credential sets are shared by every cluster whose
 * chain is the same, kept while a holder pins them (each namespace's unpinned ones bounded apart),
 * renewed before expiry, and evicted when what they were made of changes or is deleted. The chain and
 * its allowedNamespaces are checked on every resolve; the STS calls a resolve makes are charged to its
 * namespace's budget, and never made past it.
 */
export class IdentityResolver {
  readonly #options: IdentityResolverOptions;
  readonly #clock: Clock;
  readonly #stsRegion: string;
  readonly #controllerCredentials: AwsCredentialIdentityProvider;
  readonly #sets: CredentialSets<CredentialSet>;
  readonly #budget: StsBudget | undefined;
  /** The key each link (`Kind/name`) last had, per namespace (a kind's credentials may depend on it). */
  readonly #currentKey = new Map<string, string>();
  #unsignedSts: STSClient | undefined;

  constructor(options: IdentityResolverOptions) {
    this.#options = options;
    this.#clock = options.clock ?? Date.now;
    this.#stsRegion = options.aws?.stsRegion ?? DEFAULT_STS_REGION;
    this.#controllerCredentials = options.controllerCredentials ?? defaultControllerCredentials();
    this.#sets = new CredentialSets<CredentialSet>({
      // Room for a whole chain at least: a resolve in flight must not evict the sources it has just made.
      maxUnpinnedPerNamespace: Math.max(
        MAX_CHAIN_LINKS,
        options.maxUnpinnedSetsPerNamespace ?? DEFAULT_MAX_UNPINNED_SETS_PER_NAMESPACE,
      ),
      evicted: (set) => this.#dropClients(set),
      evictedForRoom: (namespace) => options.observer?.credentialSetEvicted?.(namespace),
      changed: (namespace) => options.observer?.credentialSets?.(namespace, this.#sets.countsOf(namespace)),
    });
    this.#budget = options.stsRate && new StsBudget(options.stsRate, this.#clock);
  }

  async resolve(request: ResolveRequest): Promise<IdentitySession> {
    const touched = new Set<string>();
    try {
      return await this.#resolve(request, touched);
    } catch (error) {
      if (error instanceof IdentityError) error.dependsOn = [...touched];
      throw error;
    }
  }

  async #resolve(request: ResolveRequest, touched: Set<string>): Promise<IdentitySession> {
    const links = await resolveChain(
      this.#options.store,
      {
        namespace: request.namespace,
        identityRef: request.identityRef,
        controllerNamespace: this.#options.controllerNamespace,
        capaNamespace: this.#options.capaNamespace,
        ...(this.#options.maxChainLinks ? { maxLinks: this.#options.maxChainLinks } : {}),
        cluster: request.cluster,
        usersAtDeletion: this.#options.usersAtDeletion,
        vending: request.vending,
      },
      touched,
    );
    const chain = links.map(identityLink);
    let set: CredentialSet | undefined;
    for (const link of links.toReversed())
      set = this.#credentialSet(link, set, request.namespace, request.requester ?? 'AWSCluster');
    const session = set!;
    const { accountId, principalArn } = await this.#ready(session, request.namespace).catch((error: unknown) => {
      // AWS refused the chain: every link of it was checked.
      if (error instanceof IdentityError) error.chain = chain;
      throw error;
    });
    if (request.holder) this.#sets.pin(request.holder, request.namespace, session);
    return {
      key: session.key,
      dependsOn: [...touched],
      accountId,
      principalArn,
      chain,
      deleting: links.filter(({ identity }) => identity.metadata.deletionTimestamp).map(nameOf),
      credentials: session.credentials.provider,
      renewedAt: () => session.credentials.renewedAt,
      client: (Client, region = request.region) => this.#client(session, Client, region),
    };
  }

  /**
   * An AWSCredentialsRequest's session: the chain checked as for clusters (every link must allow the
   * namespace), the request's own identity's vending (`vendingProblems`: opt-in, never a hub, never
   * keys that take no session policy), then that identity assumed with the request's session policy
   * and duration. Refused when that would not only narrow: an identity with session policies of its
   * own that the request's would widen (SessionPolicyWouldBroadenError), or what AWS would refuse
   * (InvalidCredentialsRequestError). No STS call is made for a refused request.
   */
  async resolveNarrowed(request: NarrowedRequest): Promise<NarrowedSession> {
    const touched = new Set<string>();
    try {
      return await this.#resolveNarrowed(request, touched);
    } catch (error) {
      if (error instanceof IdentityError) error.dependsOn = [...touched];
      throw error;
    }
  }

  async #resolveNarrowed({ namespace, spec, holder }: NarrowedRequest, touched: Set<string>): Promise<NarrowedSession> {
    const links = await resolveChain(
      this.#options.store,
      {
        namespace,
        identityRef: spec.identityRef,
        controllerNamespace: this.#options.controllerNamespace,
        ...(this.#options.maxChainLinks ? { maxLinks: this.#options.maxChainLinks } : {}),
        vending: true,
      },
      touched,
    );
    const chain = links.map(identityLink);
    const [own, ...sources] = links;
    const session = sessionPolicyOf(spec);
    try {
      checkNarrowing(own!, session);
    } catch (error) {
      if (error instanceof IdentityError) error.chain = chain;
      throw error;
    }
    const problems = checkCredentialsRequest(spec, { chained: roleChained(links) });
    if (problems.length > 0) throw new InvalidCredentialsRequestError(problems);
    let source: CredentialSet | undefined;
    for (const link of sources.toReversed())
      source = this.#credentialSet(link, source, namespace, 'AWSCredentialsRequest');
    const set = this.#narrowedSet(own!, source, namespace, session);
    const renewAtPercent = spec.renewAtPercent ?? DEFAULT_RENEW_AT_PERCENT;
    const { accountId, principalArn } = await this.#ready(set, namespace, this.#renewalDue(set, renewAtPercent)).catch(
      (error: unknown) => {
        if (error instanceof IdentityError) error.chain = chain;
        throw error;
      },
    );
    const credentials = await set.credentials.get();
    const obtainedAt = set.credentials.renewedAt!;
    if (holder) this.#sets.pin(holder, namespace, set);
    return {
      key: set.key,
      accountId,
      principalArn,
      chain,
      dependsOn: [...touched],
      credentials,
      obtainedAt,
      renewAt: new Date(this.#renewalTime(obtainedAt.getTime(), credentials.expiration!, renewAtPercent)),
    };
  }

  /** The credential set of a request's own link with its session policy: one per namespace, link and policy. */
  #narrowedSet(link: ChainLink, source: CredentialSet | undefined, namespace: string, session: SessionPolicy) {
    const { controllerNamespace } = this.#options;
    const linkKey = credentialKey(link, source?.key, this.#stsRegion, { namespace, controllerNamespace });
    const key = digest({ narrowed: linkKey, namespace, session });
    const cached = this.#cached(key, namespace);
    if (cached) return cached;
    const set = this.#made(
      {
        key,
        requester: 'AWSCredentialsRequest',
        source,
        namespace,
        chainKeys: new Set([key, ...(source?.chainKeys ?? [])]),
        dependsOn: new Set([linkIdOf(link), ...(source?.dependsOn ?? [])]),
        link,
      },
      session,
    );
    this.#sets.add(set, namespace);
    return set;
  }

  /** When credentials obtained at `obtainedAt` are renewed for a request asking at `renewAtPercent`. */
  #renewalTime(obtainedAt: number, expiration: Date, renewAtPercent: number): number {
    const floor = this.#options.minRenewalIntervalMs ?? DEFAULT_MIN_RENEWAL_INTERVAL_MS;
    return renewalTime(obtainedAt, expiration.getTime(), renewAtPercent, floor);
  }

  /** Whether a request asking at `renewAtPercent` finds the set's credentials due for renewal. */
  #renewalDue({ credentials }: CredentialSet, renewAtPercent: number): boolean {
    const { renewedAt, expiration } = credentials;
    return (
      renewedAt !== undefined &&
      expiration !== undefined &&
      this.#clock() >= this.#renewalTime(renewedAt.getTime(), expiration, renewAtPercent)
    );
  }

  /**
   * Makes the STS calls a resolve needs, charged to its namespace's budget: the sets of the chain whose
   * credentials are due, the root first (no renewal then asks its source on the way), the set's own
   * when `renewTop` (a request found it due), and the caller identity once per set. When the budget
   * lacks them, nothing is called: StsRateLimitedError says how long to wait (the calls are reserved).
   * A link whose last failure is still backing off fails the resolve there, without a call or a charge.
   */
  async #ready(top: CredentialSet, namespace: string, renewTop = false) {
    const chain: CredentialSet[] = [];
    for (let set: CredentialSet | undefined = top; set; set = set.source) chain.unshift(set);
    const failing = chain.findIndex((set) => set.credentials.wouldFail());
    const due = (failing < 0 ? chain : chain.slice(0, failing)).filter(
      (set) => providerOf(set.link.kind).callsSts && set.credentials.wouldObtain(set === top && renewTop),
    );
    const calls = due.length + (failing < 0 && !top.caller ? 1 : 0);
    const wait = this.#budget && calls > 0 ? this.#budget.reserve(namespace, top.key, calls) : 0;
    if (wait > 0) {
      this.#options.observer?.stsWait?.(namespace, wait);
      throw new StsRateLimitedError(namespace, wait);
    }
    for (const set of due) {
      // Every request sharing the set that finds it due names the same generation: one renewal.
      if (set === top && renewTop) set.credentials.invalidate(set.credentials.generation);
      await set.credentials.get();
    }
    return this.#callerIdentity(top);
  }

  /**
   * Drops every credential set that depends on an identity (deleted, or no longer used); `namespace`:
   * a namespaced one's, `apiGroup`: CAPA's for CAPA's.
   */
  forgetIdentity(kind: string, name: string, namespace?: string, apiGroup?: string): void {
    const id = identityId(kind, name, namespace, apiGroup);
    this.#sets.deleteWhere((set) => set.dependsOn.has(id));
    for (const current of [...this.#currentKey.keys()])
      if (current.startsWith(`${id}|`)) this.#currentKey.delete(current);
  }

  /** Drops every credential set made from a Secret of the controller's namespace. */
  forgetSecret(name: string): void {
    this.#sets.deleteWhere((set) => set.dependsOn.has(`Secret/${name}`));
  }

  /**
   * `holder` (an object deleted, edited away from its session, or refused) no longer acts with its
   * credential set: the set stays cached unpinned, in its namespace's bounded share, until evicted.
   */
  release(holder: string): void {
    this.#sets.release(holder);
  }

  /** Drops every cached credential set and client. */
  clear(): void {
    this.#sets.clear();
    this.#unsignedSts?.destroy();
    this.#unsignedSts = undefined;
    this.#currentKey.clear();
  }

  get size(): { credentialSets: number; clients: number } {
    return {
      credentialSets: this.#sets.size,
      clients: [...this.#sets.all()].reduce((sum, set) => sum + set.clients.size, 0),
    };
  }

  #credentialSet(
    link: ChainLink,
    source: CredentialSet | undefined,
    namespace: string,
    requester: Requester,
  ): CredentialSet {
    const { controllerNamespace } = this.#options;
    const key = credentialKey(link, source?.key, this.#stsRegion, { namespace, controllerNamespace });
    const linkId = linkIdOf(link);
    // Per namespace: a web identity's sessions differ by namespace, and one must not evict another's.
    const current = `${linkId}|${namespace}`;
    const previous = this.#currentKey.get(current);
    if (previous !== undefined && previous !== key) this.#sets.deleteWhere((set) => set.chainKeys.has(previous));
    this.#currentKey.set(current, key);

    const cached = this.#cached(key, namespace);
    if (cached) return cached;
    const provider = providerOf(link.kind);
    const secrets = provider.secrets(link.identity).map((name) => `Secret/${name}`);
    const set = this.#made({
      key,
      requester,
      source,
      namespace,
      chainKeys: new Set([key, ...(source?.chainKeys ?? [])]),
      dependsOn: new Set([linkId, ...secrets, ...(source?.dependsOn ?? [])]),
      link,
    });
    this.#sets.add(set, namespace);
    return set;
  }

  /** The cached set of `key`, now used by `namespace`. */
  #cached(key: string, namespace: string): CredentialSet | undefined {
    const cached = this.#sets.get(key, namespace);
    this.#options.observer?.cacheLookup?.(cached !== undefined);
    if (cached) cached.namespace = namespace;
    return cached;
  }

  /**
   * A new set's credentials. Renewals the SDK asks for by itself, while a client is in use, are charged
   * to the namespace that used the set last, and only when its budget has the call now: until then the
   * still-valid credentials stay in use (the next resolve renews them, charged to its own namespace).
   */
  #made(fields: Omit<CredentialSet, 'credentials' | 'clients'>, session?: SessionPolicy): CredentialSet {
    const set = Object.assign(fields, { clients: new Map<string, SdkClient>() }) as CredentialSet;
    const budget = this.#budget;
    const admit =
      budget && providerOf(set.link.kind).callsSts
        ? () => {
            if (budget.tryTake(set.namespace)) return undefined;
            const wait = Math.ceil(1000 / budget.rate.ratePerSecond);
            this.#options.observer?.stsWait?.(set.namespace, wait);
            return new StsRateLimitedError(set.namespace, wait);
          }
        : undefined;
    set.credentials = new RefreshingCredentials(this.#source(set, session), this.#clock, admit);
    return set;
  }

  /** What makes a set's credentials: its provider, given its source, its namespace and the calls' observer. */
  #source(set: CredentialSet, session?: SessionPolicy): CredentialSource {
    const { link, source, requester, namespace } = set;
    const observer = this.#options.observer;
    const provider = providerOf(link.kind);
    const context: CredentialContext = {
      namespace,
      controllerNamespace: this.#options.controllerNamespace,
      controllerCredentials: this.#controllerCredentials,
      sourceSts: () => this.#client(source!, STSClient, this.#stsRegion),
      unsignedSts: () => this.#unsigned(),
      serviceAccountTokens: this.#options.serviceAccountTokens ?? NO_TOKENS,
      stsEndpoint: stsEndpoint(this.#stsRegion, this.#options.aws?.endpoint),
      stsCall: (action, error) =>
        observer?.stsCall?.(action, error ? 'error' : 'success', error?.name, requester, set.namespace),
    };
    // vendingProblems let only kinds that vend through.
    return session ? provider.vending!.narrowed(link, context, session) : provider.credentials(link, context);
  }

  /** The one STS client that signs nothing (AssumeRoleWithWebIdentity needs no credentials). */
  #unsigned(): STSClient {
    const endpoint = this.#options.aws?.endpoint;
    this.#unsignedSts ??= new STSClient({ region: this.#stsRegion, ...(endpoint ? { endpoint } : {}) });
    return this.#unsignedSts;
  }

  /** One GetCallerIdentity per credential set; a failure is not cached. */
  #callerIdentity(set: CredentialSet): Promise<{ accountId: string; principalArn: string }> {
    set.caller ??= this.#client(set, STSClient, this.#stsRegion)
      .send(new GetCallerIdentityCommand({}))
      .then(
        (output) => {
          this.#options.observer?.stsCall?.('GetCallerIdentity', 'success', undefined, set.requester, set.namespace);
          return { accountId: output.Account ?? '', principalArn: output.Arn ?? '' };
        },
        (error: unknown) => {
          set.caller = undefined;
          if (error instanceof IdentityError) throw error;
          this.#options.observer?.stsCall?.(
            'GetCallerIdentity',
            'error',
            (error as Error).name,
            set.requester,
            set.namespace,
          );
          throw stsCallError(
            set.link,
            'sts:GetCallerIdentity',
            error,
            stsEndpoint(this.#stsRegion, this.#options.aws?.endpoint),
            'AWS refused these credentials: check the keys (or the role chain). Keys created moments ago may be refused for a while (IAM is eventually consistent); the controller retries.',
          );
        },
      );
    return set.caller;
  }

  #client<C extends SdkClient>(set: CredentialSet, Client: SdkClientClass<C>, region: string): C {
    const cacheKey = `${region}|${Client.name}`;
    let client = set.clients.get(cacheKey) as C | undefined;
    if (!client) {
      const observer = this.#options.observer;
      client = makeClient(
        Client,
        set.credentials,
        region,
        this.#options.aws?.endpoint,
        observer?.awsCall && ((...call) => observer.awsCall?.(...call)),
      );
      set.clients.set(cacheKey, client);
    }
    return client;
  }

  #dropClients(set: CredentialSet): void {
    for (const client of set.clients.values()) client.destroy();
    set.clients.clear();
  }
}
