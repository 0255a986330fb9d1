import { ApiException, type V1Secret } from '@kubernetes/client-node';
import { expect } from 'chai';
import type { AWSCredentialsRequest } from '@keymaster/api';
import type { IdentityResolver } from '@keymaster/identity';
import { keptSecret, type KeptSecret } from '../../src/credentials/kept-secret.js';
import { desiredSecret } from '../../src/credentials/owned-secret.js';
import { CREDENTIALS_FINALIZER, CredentialsReconciler } from '../../src/credentials/reconciler.js';
import type { RequestSecrets, SecretAccess } from '../../src/credentials/request-secrets.js';
import type { SecretWriter } from '../../src/credentials/secrets.js';
import { CredentialSetCap } from '../../src/credentials/set-cap.js';
import type { EventRecorder } from '../../src/kube/events.js';
import type { KubeWriter } from '../../src/kube/writer.js';
import type { Logger } from '../../src/logging.js';
import type { Informer } from '../../src/runtime/informer.js';
import { REQUEST } from './request.js';

const NOW = new Date('2026-05-01T12:00:00Z');
const EXPIRES = new Date('2026-05-01T13:00:00Z');
const request = (fields: Partial<AWSCredentialsRequest['metadata']> = {}): AWSCredentialsRequest => ({
  ...REQUEST,
  metadata: { ...REQUEST.metadata, finalizers: [CREDENTIALS_FINALIZER.name], ...fields },
});
const credentials = { accessKeyId: 'ASIA1', secretAccessKey: 'secret', sessionToken: 'token', expiration: EXPIRES };
const forbidden = () => new ApiException(403, 'forbidden', '{}', {});

interface World {
  access: SecretAccess;
  cached?: KeptSecret;
  /** What create answers: created, the name taken, or an error. */
  create?: boolean | Error;
  /** The Secret a read finds. */
  found?: V1Secret;
  deleting?: boolean;
}

/** A reconcile of the request in a world of fakes, and every call it made. */
async function reconcile(world: World) {
  const calls: string[] = [];
  const statuses: AWSCredentialsRequest['status'][] = [];
  const object = request(world.deleting ? { deletionTimestamp: NOW.toISOString() } : {});
  const record =
    (name: string, answer?: () => unknown) =>
    (...args: unknown[]) => {
      calls.push(name);
      const value = answer?.();
      if (value instanceof Error) return Promise.reject(value);
      return Promise.resolve(
        name === 'replaceStatus' ? (statuses.push((args[0] as typeof object).status), args[0]) : value,
      );
    };
  const reconciler = new CredentialsReconciler({
    requests: { get: () => object } as unknown as Informer<AWSCredentialsRequest>,
    secrets: { access: () => world.access, get: () => world.cached } as unknown as RequestSecrets,
    resolver: {
      resolveNarrowed: record('resolveNarrowed', () => ({
        accountId: '111111111111',
        principalArn: 'arn:aws:sts::111111111111:assumed-role/workloads/keymaster',
        credentials,
        obtainedAt: NOW,
        renewAt: new Date('2026-05-01T12:30:00Z'),
      })),
      release: () => undefined,
    } as unknown as IdentityResolver,
    cap: new CredentialSetCap(50, () => undefined),
    identity: () => undefined,
    writer: { setFinalizers: record('setFinalizers'), replaceStatus: record('replaceStatus') } as unknown as KubeWriter,
    secretWriter: {
      create: record('create', () => world.create ?? true),
      read: record('read', () => world.found),
      replace: record('replace'),
      delete: record('delete'),
    } as unknown as SecretWriter,
    events: {
      record: (_target: unknown, _type: string, reason: string) => (calls.push(`event ${reason}`), Promise.resolve()),
    } as unknown as EventRecorder,
    now: () => NOW,
    logger: {} as Logger,
    namespaceLimit: { plural: 'AWSCredentialsRequests', limit: 100, flag: 'max-credentials-requests-per-namespace' },
  });
  const result = await reconciler.reconcile({ namespace: 'tenant-b', name: 'reports' });
  const status = statuses.at(-1);
  const written = status?.conditions?.find(({ type }) => type === 'SecretWritten');
  return { calls, result, status, written };
}

/** The request's Secret as the API server holds it: owned, with other data than the session's. */
const ownSecret = (): V1Secret => {
  const secret = desiredSecret(request(), { AWS_ACCESS_KEY_ID: 'ASIA0' }, undefined);
  Object.assign(secret.metadata!, { uid: 'secret-uid', resourceVersion: '9' });
  return secret;
};

describe('the reconcile of a request, by what it may do with its Secret', () => {
  it("waits for the namespace's Secrets to be listed before anything", async () => {
    expect(await reconcile({ access: 'Pending' })).to.deep.include({ calls: [], result: undefined });
  });

  it('says SecretAccessNotGranted where it may not watch Secrets, and calls no STS', async () => {
    const { calls, written, status, result } = await reconcile({ access: 'Forbidden' });
    expect(calls).to.deep.equal(['replaceStatus', 'event SecretAccessNotGranted']);
    expect(written).to.include({ status: 'False', reason: 'SecretAccessNotGranted' });
    expect(written?.message).to.include('--namespace tenant-b').and.include('credentialVending.allowedNamespaces.list');
    expect(status?.conditions?.find(({ type }) => type === 'Ready')).to.include({ reason: 'SecretAccessNotGranted' });
    expect(result, 'the watch, once granted, brings the request back').to.equal(undefined);
  });

  it('lets a deleted request go without Secret rights: the garbage collector deletes the Secret it owns', async () => {
    const { calls } = await reconcile({ access: 'Forbidden', deleting: true });
    expect(calls).to.deep.equal(['setFinalizers']);
  });

  it('says SecretAccessNotGranted where RBAC refuses the write, retried in a minute; the session is not shown as written', async () => {
    const { calls, written, status, result } = await reconcile({ access: 'Granted', create: forbidden() });
    expect(calls.slice(0, 2)).to.deep.equal(['resolveNarrowed', 'create']);
    expect(written).to.include({ status: 'False', reason: 'SecretAccessNotGranted' });
    expect(status).to.not.have.property('expiration');
    expect(result).to.deep.equal({ requeueAfterMs: 60_000 });
  });

  it('reads a Secret the cache did not keep when its name is taken, and sets it back when the request owns it', async () => {
    const { calls, written } = await reconcile({ access: 'Granted', create: false, found: ownSecret() });
    expect(calls.slice(0, 4)).to.deep.equal(['resolveNarrowed', 'create', 'read', 'replace']);
    expect(written).to.include({ status: 'True', reason: 'SecretWritten' });
  });

  it('reads a Secret the cache did not keep when its name is taken, and leaves it alone when it is not owned', async () => {
    const found = ownSecret();
    found.metadata!.ownerReferences = [];
    const { calls, written, result } = await reconcile({ access: 'Granted', create: false, found });
    expect(calls).to.not.include('replace');
    expect(written).to.include({ status: 'False', reason: 'SecretNotOwned' });
    expect(result).to.deep.equal({ requeueAfterMs: 60_000 });
  });

  it('sets back a kept Secret whose data digest differs', async () => {
    const cached = keptSecret(() => request())(ownSecret());
    const { calls } = await reconcile({ access: 'Granted', cached });
    expect(calls.slice(0, 2)).to.deep.equal(['resolveNarrowed', 'replace']);
  });
});
