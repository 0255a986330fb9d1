import { isDeepStrictEqual } from 'node:util';
import {
  EventReason,
  SecretWrittenReason,
  type AWSCredentialsRequest,
  type AWSCredentialsRequestStatus,
  type ConditionUpdate,
  type IdentityKind,
} from '@keymaster/api';
import { providerOf, StsRateLimitedError, type IdentityObject, type IdentityResolver } from '@keymaster/identity';
import { setCondition } from '../awscluster/conditions.js';
import { IDENTITY_OK } from '../awscluster/identity-conditions.js';
import type { EventRecorder, EventType } from '../kube/events.js';
import { reconcileParked, type NamespaceLimit, type ParkedWriter } from '../kube/parked.js';
import { holds, withFinalizer, withoutFinalizer, type Finalizer } from '../kube/finalizers.js';
import type { Logger } from '../logging.js';
import { isForbidden } from '../kube/errors.js';
import type { Informer } from '../runtime/informer.js';
import type { Request, Result } from '../runtime/controller.js';
import {
  capRefusal,
  refusalVerdict,
  requestReady,
  secretAccessNotGranted,
  secretNotWritten,
  secretWritten,
  specTooLarge,
} from './conditions.js';
import { keptSecret, secretDiffers, type KeptSecret } from './kept-secret.js';
import { dataDigest as digest, desiredSecret, ownedBy } from './owned-secret.js';
import { SPEC_NOT_KEPT } from './request-as-read.js';
import type { RequestSecrets } from './request-secrets.js';
import { sessionSecretData, webIdentitySecretData, type SecretFormat } from './secret-data.js';
import type { SecretWriter } from './secrets.js';
import type { CredentialSetCap } from './set-cap.js';
import { objectKey } from '../runtime/object-key.js';

/** Held until the request's Secret is deleted: its credentials go at once, not whenever the garbage collector runs. */
export const CREDENTIALS_FINALIZER: Finalizer = {
  name: 'infrastructure.keymaster.dev/awscredentialsrequest',
  formerNames: ['awscredentialsrequest.infrastructure.keymaster.dev'],
};

/** How long to wait before looking again at a Secret name taken by a Secret the request does not own. */
const NOT_OWNED_RETRY_MS = 60_000;
/** How long to wait before writing again where RBAC refused a write (a watch refused tells by itself). */
const NOT_GRANTED_RETRY_MS = 60_000;
/** The digest of no data: a revoked Secret's. */
const EMPTY = digest({});
/** The STS region of WebIdentity mode's check (the clients of that session are never used). */
const CHECK_REGION = 'us-east-1';

/**
 * What the AWSCredentialsRequest reconcile calls, each as narrow as its use: the controller passes the
 * concrete classes, unit tests the fakes of test/support.
 */
export interface CredentialsReconcilerDeps {
  requests: Pick<Informer<AWSCredentialsRequest>, 'get' | 'parked'>;
  /** The Secrets requests control, without their data, watched per namespace. */
  secrets: Pick<RequestSecrets, 'access' | 'get'>;
  resolver: Pick<IdentityResolver, 'resolve' | 'resolveNarrowed' | 'release'>;
  /** The cap on distinct credential sets per namespace, kept from the requests' informer. */
  cap: Pick<CredentialSetCap, 'verdict' | 'max'>;
  /** An identity from the informer caches. */
  identity: (kind: IdentityKind, name: string) => IdentityObject | undefined;
  writer: ParkedWriter;
  secretWriter: Pick<SecretWriter, 'create' | 'read' | 'replace' | 'delete'>;
  events: Pick<EventRecorder, 'record'>;
  now: () => Date;
  logger: Logger;
  /** How many requests a namespace is served (the informer's bound): what a parked request is told. */
  namespaceLimit: NamespaceLimit;
}

/** What the identity gave: the Secret's data and, for sessions, its times; or why nothing. */
type Outcome =
  | {
      served: true;
      data: Record<string, string>;
      accountId: string;
      principalArn: string;
      times?: { obtainedAt: Date; expiration: Date; renewAt: Date };
    }
  | { served: false; allowed: ConditionUpdate; retrieved: ConditionUpdate; transient: boolean };

interface Event {
  type: EventType;
  reason: string;
  message: string;
}

/**
 * The reconcile of an AWSCredentialsRequest: the identity checked and narrowed, the credentials
 * written to the request's own Secret in its own namespace (set back when edited, recreated when
 * deleted, emptied when the namespace loses the identity), renewed before they expire. The Secret's
 * contents never leave it: no log, event, condition or metric holds them.
 */
export class CredentialsReconciler {
  /** A digest of the data last written to each request's Secret: a different live Secret was edited by hand. */
  readonly #written = new Map<string, string>();

  constructor(private readonly deps: CredentialsReconcilerDeps) {}

  readonly reconcile = async ({ namespace = '', name }: Request): Promise<Result | undefined> => {
    const key = objectKey({ namespace, name });
    const request = this.deps.requests.get(name, namespace);
    if (!request) {
      this.#written.delete(key);
      this.deps.resolver.release(holderOf(key));
      const parked = this.deps.requests.parked(name, namespace);
      if (parked)
        await reconcileParked(
          parked,
          CREDENTIALS_FINALIZER,
          this.deps.namespaceLimit,
          this.deps.writer,
          this.deps.now(),
        );
      return undefined;
    }
    // Until the namespace's Secrets are listed nothing is known of this one: the list enqueues it again.
    const access = this.deps.secrets.access(namespace);
    if (access === 'Pending') return undefined;
    const live = access === 'Granted' ? this.deps.secrets.get(request.spec.secretRef.name, namespace) : undefined;
    const finalizers = request.metadata.finalizers ?? [];
    if (request.metadata.deletionTimestamp) {
      // Without Secret rights here, the garbage collector deletes the Secret the request owns.
      if (live && ownedBy(live, request)) await this.deps.secretWriter.delete(live);
      this.#written.delete(key);
      this.deps.resolver.release(holderOf(key));
      if (holds(finalizers, CREDENTIALS_FINALIZER))
        await this.deps.writer.setFinalizers(request, withoutFinalizer(finalizers, CREDENTIALS_FINALIZER));
      return undefined;
    }
    const named = withFinalizer(finalizers, CREDENTIALS_FINALIZER);
    if (named) {
      // Its update event brings the request back, with the finalizer, before any credentials exist.
      await this.deps.writer.setFinalizers(request, named);
      return undefined;
    }

    if (access === 'Forbidden') {
      // No STS call for credentials that could not be written; the watch's first list once ops
      // granted the rights brings the request back.
      await this.#report(request, secretAccessNotGranted(namespace, request.spec.secretRef.name));
      return undefined;
    }

    let outcome: Outcome;
    try {
      outcome = await this.#obtain(request);
    } catch (error) {
      // The namespace's STS budget: back when it allows; the Secret and status stay as they are.
      if (error instanceof StsRateLimitedError) return { requeueAfterMs: error.retryAfterMs };
      throw error;
    }
    // A request that cannot be served as written acts with no set: its namespace may evict it.
    if (!outcome.served && !outcome.transient) this.deps.resolver.release(holderOf(key));
    const events: Event[] = [];
    let written: ConditionUpdate;
    let result: Result | undefined;
    try {
      if (outcome.served) {
        written = await this.#write(request, live, outcome.data, outcome.times?.expiration, events);
        if (written.reason === SecretWrittenReason.SecretNotOwned) result = { requeueAfterMs: NOT_OWNED_RETRY_MS };
        else if (outcome.times)
          result = {
            requeueAfterMs: Math.max(1_000, outcome.times.renewAt.getTime() - this.deps.now().getTime()),
          };
      } else if (outcome.transient) {
        // AWS or the network failed: the Secret keeps credentials that are still valid; retried with backoff.
        written = secretNotWritten(SecretWrittenReason.NotRenewed, `Not renewed: ${outcome.retrieved.message}`);
        result = { requeue: true };
      } else {
        const why = outcome.allowed.status === 'False' ? outcome.allowed : outcome.retrieved;
        written = await this.#revoke(request, live, why.message, events);
      }
    } catch (error) {
      // Watching is granted but writing is not (a role with fewer verbs, or the controller's own namespace).
      if (!isForbidden(error)) throw error;
      written = secretAccessNotGranted(namespace, request.spec.secretRef.name);
      result = { requeueAfterMs: NOT_GRANTED_RETRY_MS };
    }

    const status = this.#status(request, outcome, written);
    if (!isDeepStrictEqual(status, request.status)) {
      await this.deps.writer.replaceStatus({ ...request, status });
      events.push(...newFailures(request.status, status));
    }
    for (const event of events) await this.deps.events.record(request, event.type, event.reason, event.message);
    return result;
  };

  async #obtain(request: AWSCredentialsRequest): Promise<Outcome> {
    const { namespace = '', name = '' } = request.metadata;
    const { spec } = request;
    const notKept = request.metadata.annotations?.[SPEC_NOT_KEPT];
    if (notKept !== undefined) return { served: false, ...specTooLarge(Number(notKept)) };
    const format: SecretFormat = spec.format ?? 'Environment';
    const holder = holderOf(objectKey({ namespace, name }));
    const cap = this.deps.cap.verdict(namespace, name);
    if (!cap.admitted) return { served: false, ...capRefusal(namespace, this.deps.cap.max) };
    try {
      if (spec.mode === 'WebIdentity') {
        const identity = this.deps.identity(spec.identityRef.kind, spec.identityRef.name);
        // The controller assumes the role with a token of the namespace's ServiceAccount, as the pods
        // will: AWS confirms the trust policy before the Secret tells pods to rely on it.
        const session = await this.deps.resolver.resolve({
          namespace,
          identityRef: spec.identityRef,
          region: CHECK_REGION,
          requester: 'AWSCredentialsRequest',
          vending: true,
          holder,
        });
        return {
          served: true,
          // The schema admits WebIdentity mode only for kinds whose provider has a workloadConfig.
          data: webIdentitySecretData(format, providerOf(identity!.kind).vending!.workloadConfig!(identity!)),
          accountId: session.accountId,
          principalArn: session.principalArn,
        };
      }
      const session = await this.deps.resolver.resolveNarrowed({ namespace, spec, holder });
      const { credentials, obtainedAt, renewAt } = session;
      return {
        served: true,
        data: sessionSecretData(format, credentials),
        accountId: session.accountId,
        principalArn: session.principalArn,
        times: { obtainedAt, expiration: credentials.expiration!, renewAt },
      };
    } catch (error) {
      if (error instanceof StsRateLimitedError) throw error;
      return { served: false, ...refusalVerdict(error) };
    }
  }

  /** Writes the Secret: created, set back, or left as it is; never one the request does not own. */
  async #write(
    request: AWSCredentialsRequest,
    cached: KeptSecret | undefined,
    data: Record<string, string>,
    expires: Date | undefined,
    events: Event[],
  ): Promise<ConditionUpdate> {
    const secretName = request.spec.secretRef.name;
    const namespace = request.metadata.namespace ?? '';
    const key = objectKey({ namespace, name: request.metadata.name });
    const desired = desiredSecret(request, data, expires);
    const until = expires ? ` until ${expires.toISOString()}` : '';
    let live = cached;
    if (live && !ownedBy(live, request)) return notOwned(secretName);
    if (!live && !(await this.deps.secretWriter.create(desired))) {
      // The name is taken. The cache keeps only Secrets of requests it knew when the Secret's event
      // came: one seen before its request (clusterctl move) is read here.
      const found = await this.deps.secretWriter.read(namespace, secretName);
      live = found && keptSecret(() => request)(found);
      if (!live) return notOwned(secretName);
    }
    if (!live) {
      if (this.#written.has(key))
        events.push({
          type: 'Warning',
          reason: EventReason.SecretRecreated,
          message: `Secret ${secretName} was deleted: recreated`,
        });
    } else if (secretDiffers(live, desired)) {
      const edited = this.#written.get(key) !== undefined && this.#written.get(key) !== live.dataDigest;
      await this.deps.secretWriter.replace(live, desired);
      if (edited)
        events.push({
          type: 'Warning',
          reason: EventReason.SecretRestored,
          message: `Secret ${secretName} was edited: set back`,
        });
    }
    if (this.#written.get(key) !== digest(desired.data ?? {})) {
      const renewal = this.#written.has(key);
      events.push({
        type: 'Normal',
        reason: renewal ? EventReason.CredentialsRenewed : EventReason.CredentialsWritten,
        message: `Secret ${secretName} holds ${request.spec.mode === 'WebIdentity' ? 'the web identity configuration' : `credentials${until}`}`,
      });
    }
    this.#written.set(key, digest(desired.data ?? {}));
    return secretWritten(
      `Secret ${secretName} holds ${request.spec.mode === 'WebIdentity' ? 'the AWS config for pods with a projected ServiceAccount token (no secret material)' : `credentials valid${until}`}`,
    );
  }

  /** Empties the request's own Secret at once (it stays, owned, to be filled again when the request can be served). */
  async #revoke(
    request: AWSCredentialsRequest,
    live: KeptSecret | undefined,
    why: string,
    events: Event[],
  ): Promise<ConditionUpdate> {
    const secretName = request.spec.secretRef.name;
    const key = objectKey(request.metadata);
    if (live && ownedBy(live, request) && live.dataDigest !== EMPTY) {
      await this.deps.secretWriter.replace(live, desiredSecret(request, {}, undefined));
      events.push({
        type: 'Warning',
        reason: EventReason.CredentialsRevoked,
        message: `Credentials removed from Secret ${secretName}: ${why}`,
      });
    }
    this.#written.set(key, EMPTY);
    return secretNotWritten(
      SecretWrittenReason.CredentialsRevoked,
      `Secret ${secretName} holds no credentials: ${why}`,
    );
  }

  /** Only SecretWritten (and Ready) changes: what the Secret holds, and when it expires, is as before. */
  async #report(request: AWSCredentialsRequest, written: ConditionUpdate): Promise<void> {
    const generation = request.metadata.generation ?? 0;
    const now = this.deps.now().toISOString();
    const previous = request.status ?? {};
    let conditions = setCondition(previous.conditions ?? [], written, generation, now);
    conditions = setCondition(conditions, requestReady(conditions), generation, now);
    const status = { ...previous, conditions, observedGeneration: generation };
    if (isDeepStrictEqual(status, request.status)) return;
    await this.deps.writer.replaceStatus({ ...request, status });
    for (const event of newFailures(request.status, status))
      await this.deps.events.record(request, event.type, event.reason, event.message);
  }

  #status(request: AWSCredentialsRequest, outcome: Outcome, written: ConditionUpdate): AWSCredentialsRequestStatus {
    const generation = request.metadata.generation ?? 0;
    const previous = request.status ?? {};
    const now = this.deps.now().toISOString();
    const allowed = outcome.served ? IDENTITY_OK.allowed : outcome.allowed;
    const retrieved = outcome.served ? IDENTITY_OK.retrieved : outcome.retrieved;
    let conditions = previous.conditions ?? [];
    for (const update of [allowed, retrieved, written]) conditions = setCondition(conditions, update, generation, now);
    conditions = setCondition(conditions, requestReady(conditions), generation, now);
    const keep = (
      [
        SecretWrittenReason.NotRenewed,
        SecretWrittenReason.SecretNotOwned,
        SecretWrittenReason.SecretAccessNotGranted,
      ] as string[]
    ).includes(written.reason);
    // The times of what the Secret holds: a session that could not be written is not in it.
    const times = outcome.served && written.status === 'True' ? outcome.times : undefined;
    return {
      conditions,
      observedGeneration: generation,
      ...(outcome.served
        ? { accountID: outcome.accountId, principalARN: outcome.principalArn }
        : pick(previous, ['accountID', 'principalARN'])),
      ...(times
        ? {
            expiration: times.expiration.toISOString(),
            lastRenewalTime: times.obtainedAt.toISOString(),
            nextRenewalTime: times.renewAt.toISOString(),
          }
        : keep
          ? pick(previous, ['expiration', 'lastRenewalTime', 'nextRenewalTime'])
          : {}),
    };
  }
}

/** Who holds a request's credential set in the resolver. */
const holderOf = (key: string) => `AWSCredentialsRequest/${key}`;

const notOwned = (secretName: string) =>
  secretNotWritten(
    SecretWrittenReason.SecretNotOwned,
    `A Secret named ${secretName} already exists in this namespace and was not created by this request: Keymaster never writes into a Secret it does not own. Delete it, or set spec.secretRef.name to a free name (create another request)`,
  );

function pick<T extends object, K extends keyof T>(object: T, keys: K[]): Partial<Pick<T, K>> {
  return Object.fromEntries(
    keys.filter((key) => object[key] !== undefined).map((key) => [key, object[key]]),
  ) as Partial<Pick<T, K>>;
}

/** Warning events for conditions that have just become False (or False for another reason). */
function newFailures(before: AWSCredentialsRequestStatus | undefined, after: AWSCredentialsRequestStatus): Event[] {
  return (['PrincipalUsageAllowed', 'PrincipalCredentialRetrieved', 'SecretWritten'] as const).flatMap((type) => {
    const now = after.conditions?.find((condition) => condition.type === type);
    const previous = before?.conditions?.find((condition) => condition.type === type);
    const fresh = now?.status === 'False' && (previous?.status !== 'False' || previous.reason !== now.reason);
    return fresh && now.reason !== SecretWrittenReason.CredentialsRevoked
      ? [{ type: 'Warning' as const, reason: now.reason, message: now.message }]
      : [];
  });
}
