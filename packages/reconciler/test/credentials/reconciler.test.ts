import { ApiException, type V1Secret } from '@kubernetes/client-node';
import { expect } from 'chai';
import { API_VERSION, InvalidCredentialsRequestError, type AWSCredentialsRequest } from '@keymaster/api';
import {
  ControllerNamespaceTokenNotVendableError,
  PassthroughRefusedError,
  SessionPolicyWouldBroadenError,
  SourceIdentityNotVendableError,
  StsRateLimitedError,
  VendingNamespaceNotAllowedError,
  VendingNotEnabledError,
  type IdentityObject,
} from '@keymaster/identity';
import { keptSecret } from '../../src/credentials/kept-secret.js';
import { desiredSecret } from '../../src/credentials/owned-secret.js';
import { CREDENTIALS_FINALIZER, CredentialsReconciler } from '../../src/credentials/reconciler.js';
import { SPEC_NOT_KEPT } from '../../src/credentials/request-as-read.js';
import type { Result } from '../../src/runtime/controller.js';
import { FakeInformer } from '../support/fake-informer.js';
import { ACCOUNT, FakeResolver, fakeSession } from '../support/fake-resolver.js';
import { FakeRequestSecrets, RecordingSecretWriter } from '../support/fake-secrets.js';
import { identityFailures } from '../support/identity-failures.js';
import { quietLogger } from '../support/quiet-logger.js';
import { expectRow, reasonsOf, reasonsWithoutRow, type ReconcileRow } from '../support/reconcile-rows.js';
import { RecordingEvents } from '../support/recording-events.js';
import { RecordingWriter } from '../support/recording-writer.js';
import { REQUEST } from './request.js';

const NOW = new Date('2026-05-01T12:00:00Z');
const EXPIRES = new Date('2026-05-01T13:00:00Z');
const RENEW_AT = new Date('2026-05-01T12:30:00Z');
/** A written session is looked at again when it is due for renewal. */
const RENEWAL = { requeueAfterMs: RENEW_AT.getTime() - NOW.getTime() };
const ROLE = REQUEST.spec.identityRef;
const WEB = { kind: 'AWSClusterWebIdentity', name: 'reports-web' } as const;

const request = (fields: Partial<AWSCredentialsRequest['metadata']> = {}): AWSCredentialsRequest => ({
  ...REQUEST,
  metadata: { ...REQUEST.metadata, generation: 1, finalizers: [CREDENTIALS_FINALIZER.name], ...fields },
});
const webRequest = (): AWSCredentialsRequest => ({
  ...request(),
  spec: { identityRef: WEB, secretRef: REQUEST.spec.secretRef, mode: 'WebIdentity' },
});
const webIdentity: IdentityObject = {
  apiVersion: API_VERSION,
  kind: 'AWSClusterWebIdentity',
  metadata: { name: WEB.name },
  spec: { roleARN: `arn:aws:iam::${ACCOUNT}:role/reports`, serviceAccount: { name: 'reports' } },
};
const forbidden = () => new ApiException(403, 'forbidden', '{}', {});

/** The request's Secret as the API server holds it: owned, with other data than the session's. */
const ownSecret = (): V1Secret => {
  const secret = desiredSecret(request(), { AWS_ACCESS_KEY_ID: 'ASIA0' }, undefined);
  Object.assign(secret.metadata!, { uid: 'secret-uid', resourceVersion: '9' });
  return secret;
};
const kept = (secret = ownSecret()) => keptSecret(() => request())(secret);

/** One request reconcile's world of fakes. */
class RequestWorld {
  readonly requests = new FakeInformer<AWSCredentialsRequest>();
  readonly secrets = new FakeRequestSecrets();
  readonly resolver = new FakeResolver();
  readonly writer = new RecordingWriter();
  readonly secretWriter = new RecordingSecretWriter();
  readonly events = new RecordingEvents();
  /** The namespace's credential sets, and whether the cap admits this request's. */
  cap = { max: 50, admitted: true, distinct: 1 };

  constructor() {
    this.resolver.narrowed = {
      key: 'set-1',
      accountId: ACCOUNT,
      principalArn: `arn:aws:sts::${ACCOUNT}:assumed-role/workloads/keymaster`,
      chain: [ROLE],
      dependsOn: [],
      credentials: { accessKeyId: 'ASIA1', secretAccessKey: 'secret', sessionToken: 'token', expiration: EXPIRES },
      obtainedAt: NOW,
      renewAt: RENEW_AT,
    };
    this.resolver.answer = fakeSession([WEB]);
  }

  reconcile(): Promise<Result | undefined> {
    const { cap } = this;
    const reconciler = new CredentialsReconciler({
      requests: this.requests,
      secrets: this.secrets,
      resolver: this.resolver,
      cap: { max: cap.max, verdict: () => ({ admitted: cap.admitted, distinct: cap.distinct }) },
      identity: (_kind, name) => (name === WEB.name ? webIdentity : undefined),
      writer: this.writer,
      secretWriter: this.secretWriter,
      events: this.events,
      now: () => NOW,
      logger: quietLogger(),
      namespaceLimit: { plural: 'AWSCredentialsRequests', limit: 1, flag: 'max-credentials-requests-per-namespace' },
    });
    return reconciler.reconcile({ namespace: 'tenant-b', name: 'reports' });
  }
}

interface Row extends ReconcileRow {
  /** Sets the world up; by default the request is cached, its Secrets watched, and the session resolves. */
  given?: (world: RequestWorld) => void;
  /** The calls on the Secret, when the row is about them. */
  secretCalls?: string[];
}

const cached =
  (object = request()) =>
  (world: RequestWorld) =>
    world.requests.put(object);
const refusedBy = (error: Error) => (world: RequestWorld) => {
  world.requests.put(request());
  world.resolver.narrowed = error;
};

const served = {
  PrincipalUsageAllowed: 'PrincipalUsageAllowed',
  PrincipalCredentialRetrieved: 'PrincipalCredentialRetrieved',
};
const written = { ...served, SecretWritten: 'SecretWritten', Ready: 'Ready' };
/** A request the identity will not serve: its Secret holds no credentials. */
const revoked = (allowed: string, retrieved: string, ready: string) => ({
  PrincipalUsageAllowed: allowed,
  PrincipalCredentialRetrieved: retrieved,
  SecretWritten: 'CredentialsRevoked',
  Ready: ready,
});

const ROWS: Row[] = [
  { title: 'a request gone from the cache writes nothing', writes: [] },
  {
    title: 'a parked request is told its namespace is over the bound',
    given: (world) => world.requests.park(request()),
    reasons: { Ready: 'NamespaceLimitReached' },
  },
  {
    title: "waits for the namespace's Secrets to be listed before anything",
    given: (world) => {
      world.requests.put(request());
      world.secrets.granted = 'Pending';
    },
    writes: [],
    secretCalls: [],
  },
  {
    title: 'a request without the finalizer gets it before any credentials exist',
    given: cached(request({ finalizers: [] })),
    writes: ['setFinalizers AWSCredentialsRequest/reports'],
    secretCalls: [],
  },
  {
    title: 'a deleted request deletes the Secret it owns and lets its finalizer go',
    given: (world) => {
      world.requests.put(request({ deletionTimestamp: NOW.toISOString() }));
      world.secrets.kept = kept();
    },
    secretCalls: ['delete'],
    writes: ['setFinalizers AWSCredentialsRequest/reports'],
  },
  {
    title: 'lets a deleted request go without Secret rights: the garbage collector deletes the Secret it owns',
    given: (world) => {
      world.requests.put(request({ deletionTimestamp: NOW.toISOString() }));
      world.secrets.granted = 'Forbidden';
      world.secrets.kept = kept();
    },
    secretCalls: [],
    writes: ['setFinalizers AWSCredentialsRequest/reports'],
  },
  {
    title: 'says SecretAccessNotGranted where it may not watch Secrets, and calls no STS',
    given: (world) => {
      world.requests.put(request());
      world.secrets.granted = 'Forbidden';
    },
    reasons: { SecretWritten: 'SecretAccessNotGranted', Ready: 'SecretAccessNotGranted' },
    events: ['Warning SecretAccessNotGranted'],
  },
  {
    title: 'writes a session into a new Secret, and renews it at renewAt',
    given: cached(),
    reasons: written,
    secretCalls: ['create'],
    events: ['Normal CredentialsWritten'],
    result: RENEWAL,
  },
  {
    title: 'writes the web identity configuration, with nothing to renew',
    given: cached(webRequest()),
    reasons: written,
    secretCalls: ['create'],
  },
  {
    title: 'sets back a kept Secret whose data digest differs',
    given: (world) => {
      world.requests.put(request());
      world.secrets.kept = kept();
    },
    reasons: written,
    secretCalls: ['replace'],
    result: RENEWAL,
  },
  {
    title: 'reads a Secret the cache did not keep when its name is taken, and sets it back when the request owns it',
    given: (world) => {
      world.requests.put(request());
      world.secretWriter.created = false;
      world.secretWriter.found = ownSecret();
    },
    reasons: written,
    secretCalls: ['create', 'read', 'replace'],
    result: RENEWAL,
  },
  {
    title: 'leaves a Secret it does not own alone, and looks again in a minute',
    given: (world) => {
      world.requests.put(request());
      world.secretWriter.created = false;
      const found = ownSecret();
      found.metadata!.ownerReferences = [];
      world.secretWriter.found = found;
    },
    reasons: { ...served, SecretWritten: 'SecretNotOwned', Ready: 'SecretNotOwned' },
    secretCalls: ['create', 'read'],
    result: { requeueAfterMs: 60_000 },
  },
  {
    title: 'says SecretAccessNotGranted where RBAC refuses the write, retried in a minute',
    given: (world) => {
      world.requests.put(request());
      world.secretWriter.created = forbidden();
    },
    reasons: { ...served, SecretWritten: 'SecretAccessNotGranted', Ready: 'SecretAccessNotGranted' },
    result: { requeueAfterMs: 60_000 },
  },
  {
    title: 'a namespace out of STS budget waits for it; Secret and status stay',
    given: refusedBy(new StsRateLimitedError('tenant-b', 2500)),
    writes: [],
    secretCalls: [],
    result: { requeueAfterMs: 2500 },
  },
  {
    title: 'a spec larger than any valid one is refused unread',
    given: cached(request({ annotations: { [SPEC_NOT_KEPT]: '40000' } })),
    reasons: revoked('PrincipalUsageAllowed', 'SpecTooLarge', 'SpecTooLarge'),
  },
  {
    title: "a request past its namespace's credential set cap is refused before STS",
    given: (world) => {
      world.requests.put(request());
      world.cap = { max: 1, admitted: false, distinct: 2 };
    },
    reasons: revoked('NotAttempted', 'CredentialSetCapExceeded', 'CredentialSetCapExceeded'),
  },
  {
    title: 'an invalid request is refused, naming the field',
    given: refusedBy(
      new InvalidCredentialsRequestError([
        { field: 'spec.durationSeconds', problem: 'is 60', fix: 'Use 900 or more.' },
      ]),
    ),
    reasons: revoked('PrincipalUsageAllowed', 'InvalidRequest', 'InvalidRequest'),
  },
  {
    title: 'an identity that vends to no namespace',
    given: refusedBy(new VendingNotEnabledError(ROLE, 'tenant-b')),
    reasons: revoked('VendingNotEnabled', 'NotAttempted', 'VendingNotEnabled'),
    events: ['Warning VendingNotEnabled'],
  },
  {
    title: 'an identity that vends to other namespaces',
    given: refusedBy(new VendingNamespaceNotAllowedError(ROLE, 'tenant-b')),
    reasons: revoked('VendingNamespaceNotAllowed', 'NotAttempted', 'VendingNamespaceNotAllowed'),
  },
  {
    title: 'a source identity that may not be vended',
    given: refusedBy(new SourceIdentityNotVendableError(ROLE, 1)),
    reasons: revoked('SourceIdentityNotVendable', 'NotAttempted', 'SourceIdentityNotVendable'),
  },
  {
    title: "a web identity whose tokens are the controller namespace's",
    given: refusedBy(new ControllerNamespaceTokenNotVendableError(WEB)),
    reasons: revoked('ControllerNamespaceTokenNotVendable', 'NotAttempted', 'ControllerNamespaceTokenNotVendable'),
  },
  {
    title: 'keys no session policy can narrow are never written out',
    given: refusedBy(new PassthroughRefusedError({ kind: 'AWSClusterStaticIdentity', name: 'keys' })),
    reasons: revoked('PrincipalUsageAllowed', 'PassthroughRefused', 'PassthroughRefused'),
  },
  {
    title: 'statements that could widen the identity’s own session policies',
    given: refusedBy(new SessionPolicyWouldBroadenError(ROLE)),
    reasons: revoked('PrincipalUsageAllowed', 'SessionPolicyWouldBroaden', 'SessionPolicyWouldBroaden'),
  },
  ...identityFailures(ROLE, 'tenant-b').map(({ title, error, allowed, retrieved, ready, transient }): Row =>
    transient
      ? {
          title: `not renewed, the Secret keeping what is still valid: ${title}`,
          given: refusedBy(error),
          reasons: {
            PrincipalUsageAllowed: allowed,
            PrincipalCredentialRetrieved: retrieved,
            SecretWritten: 'NotRenewed',
            Ready: ready,
          },
          secretCalls: [],
          result: { requeue: true },
        }
      : { title: `refused: ${title}`, given: refusedBy(error), reasons: revoked(allowed, retrieved, ready) },
  ),
  {
    title: 'a refusal empties the Secret that held credentials, at once',
    given: (world) => {
      refusedBy(new VendingNotEnabledError(ROLE, 'tenant-b'))(world);
      world.secrets.kept = kept();
    },
    reasons: revoked('VendingNotEnabled', 'NotAttempted', 'VendingNotEnabled'),
    secretCalls: ['replace'],
    events: ['Warning CredentialsRevoked', 'Warning VendingNotEnabled'],
  },
];

/** Reasons of the request's condition types that only AWSClusters get, or nothing writes. */
const NOT_REQUEST = [
  'AccountNotBound',
  'AccountOfAnotherTenant',
  // Ready is Unknown for an input not set yet; SecretWritten, set first, is False whenever the others are not.
  'Reconciling',
];
const REQUEST_REASONS = reasonsOf([
  'PrincipalUsageAllowed',
  'PrincipalCredentialRetrieved',
  'SecretWritten',
  'Ready',
]).filter((reason) => !NOT_REQUEST.includes(reason));

describe('the AWSCredentialsRequest reconcile, branch by branch', () => {
  for (const row of ROWS) {
    it(row.title, async () => {
      const world = new RequestWorld();
      row.given?.(world);
      expectRow(row, world, await world.reconcile());
      if (row.secretCalls) expect(world.secretWriter.calls).to.deep.equal(row.secretCalls);
    });
  }

  it('has a row for every reason of every condition', () => {
    expect(reasonsWithoutRow(ROWS, REQUEST_REASONS)).to.deep.equal([]);
  });

  it('keeps no session it could not write in status', async () => {
    const world = new RequestWorld();
    world.requests.put(request());
    world.secretWriter.created = forbidden();
    await world.reconcile();
    expect(world.writer.status).to.not.have.any.keys('expiration', 'lastRenewalTime', 'nextRenewalTime');
  });

  it('shows the times of the session the Secret holds', async () => {
    const world = new RequestWorld();
    world.requests.put(request());
    await world.reconcile();
    expect(world.writer.status).to.deep.include({
      accountID: ACCOUNT,
      expiration: EXPIRES.toISOString(),
      lastRenewalTime: NOW.toISOString(),
      nextRenewalTime: RENEW_AT.toISOString(),
    });
  });

  it('names neither key nor token in status or events', async () => {
    const world = new RequestWorld();
    world.requests.put(request());
    await world.reconcile();
    expect(world.secretWriter.data, 'the Secret holds them').to.not.equal(undefined);
    const told = JSON.stringify([world.writer.status, world.events.recorded]);
    expect(told).to.not.include('ASIA1').and.not.include('secret"').and.not.include('token"');
  });

  it('asks for the web identity session as the request, with vending checked', async () => {
    const world = new RequestWorld();
    world.requests.put(webRequest());
    await world.reconcile();
    expect(world.resolver.asked[0]).to.deep.include({
      namespace: 'tenant-b',
      identityRef: WEB,
      requester: 'AWSCredentialsRequest',
      vending: true,
      holder: 'AWSCredentialsRequest/tenant-b/reports',
    });
  });

  it('releases the credential set of a request that cannot be served', async () => {
    const world = new RequestWorld();
    refusedBy(new VendingNotEnabledError(ROLE, 'tenant-b'))(world);
    await world.reconcile();
    expect(world.resolver.released).to.deep.equal(['AWSCredentialsRequest/tenant-b/reports']);
  });
});
