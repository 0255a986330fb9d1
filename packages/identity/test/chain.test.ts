import { expect } from 'chai';
import { resolveChain } from '../src/chain.js';
import {
  chainDependencies,
  chainReach,
  ChainTooDeepError,
  IdentityCycleError,
  IdentityDeletingError,
  IdentityError,
  IdentityNotFoundError,
  InvalidIdentityError,
  NamespaceNotAllowedError,
  SecretInvalidError,
  SecretNotFoundError,
  type IdentityObject,
  type IdentityStore,
} from '../src/index.js';
import { controller, keys, memoryStore, role, staticIdentity } from './fixtures.js';

const ROLE = 'AWSClusterRoleIdentity' as const;
const request = (name: string, kind: 'AWSClusterRoleIdentity' | 'AWSClusterStaticIdentity' = ROLE) => ({
  namespace: 'tenant-a',
  identityRef: { kind, name },
  controllerNamespace: 'keymaster-system',
});

async function failure(store: IdentityStore, req: Parameters<typeof resolveChain>[1]): Promise<Error> {
  try {
    await resolveChain(store, req);
  } catch (error) {
    return error as Error;
  }
  return expect.fail('expected the chain to be refused');
}

describe('resolveChain', () => {
  it("walks a role chain to the controller identity, the cluster's own identity first", async () => {
    const { store } = memoryStore([
      controller(),
      role('hub'),
      role('tenant', { sourceIdentityRef: { kind: ROLE, name: 'hub' } }),
    ]);
    const links = await resolveChain(store, request('tenant'));
    expect(links.map((link) => `${link.kind}/${link.name}`)).to.deep.equal([
      'AWSClusterRoleIdentity/tenant',
      'AWSClusterRoleIdentity/hub',
      'AWSClusterControllerIdentity/default',
    ]);
  });

  it('defaults a missing identityRef to the controller identity, which must exist', async () => {
    const { store } = memoryStore([controller()]);
    const links = await resolveChain(store, { namespace: 'tenant-a', controllerNamespace: 'keymaster-system' });
    expect(links.map((link) => link.kind)).to.deep.equal(['AWSClusterControllerIdentity']);
    const error = await failure(memoryStore([role('r')]).store, request('r'));
    expect(error).to.be.instanceOf(IdentityNotFoundError);
    expect(error.message).to.equal(
      'AWSClusterControllerIdentity/default not found (referenced by AWSClusterRoleIdentity/r)',
    );
  });

  it('reads static keys from the controller namespace only', async () => {
    const { store, reads } = memoryStore([staticIdentity('a', 'a-keys')], {
      'keymaster-system/a-keys': keys('AKIAEXAMPLE000000001'),
    });
    const [link] = await resolveChain(store, request('a', 'AWSClusterStaticIdentity'));
    expect(link!.material).to.deep.equal({ accessKeyId: 'AKIAEXAMPLE000000001', secretAccessKey: 'secret' });
    expect(reads.secrets).to.deep.equal(['keymaster-system/a-keys']);
  });

  it('refuses a namespace at the first link and at a deeper link, naming the link and its depth', async () => {
    const first = await failure(
      memoryStore([controller(), role('r', { allowedNamespaces: { list: ['other'] } })]).store,
      request('r'),
    );
    expect(first).to.be.instanceOf(NamespaceNotAllowedError).with.property('depth', 0);
    expect(first.message).to.equal('namespace "tenant-a" may not use AWSClusterRoleIdentity/r');

    const deeper = await failure(memoryStore([controller({ list: ['other'] }), role('r')]).store, request('r'));
    expect(deeper).to.be.instanceOf(NamespaceNotAllowedError).with.property('depth', 1);
    expect(deeper).to.have.deep.property('link', { kind: 'AWSClusterControllerIdentity', name: 'default' });
  });

  it('does not read the Secret of an identity the namespace may not use', async () => {
    const { store, reads } = memoryStore([staticIdentity('a', 'a-keys', { list: ['other'] })], {
      'keymaster-system/a-keys': keys('AKIAEXAMPLE000000001'),
    });
    await failure(store, request('a', 'AWSClusterStaticIdentity'));
    expect(reads.secrets).to.deep.equal([]);
  });

  it("reads a role's externalID Secret only once every link allowed the namespace: a deeper refusal wins", async () => {
    const tenant = role('tenant', { externalIDSecretRef: { name: 'tenant-external-id', key: 'externalID' } });
    const refused = memoryStore([controller({ list: ['other'] }), tenant]);
    const deeper = await failure(refused.store, request('tenant'));
    expect(deeper).to.be.instanceOf(NamespaceNotAllowedError).with.property('depth', 1);
    expect(refused.reads.secrets, 'no Secret read for a chain the namespace may not use').to.deep.equal([]);

    // Allowed all along: the Secret is read, and its absence is the refusal, with the whole chain checked.
    const missing = await failure(memoryStore([controller(), tenant]).store, request('tenant'));
    expect(missing).to.be.instanceOf(SecretNotFoundError).with.property('usageChecked', true);
    expect((missing as IdentityError).chain.map(({ kind }) => kind)).to.deep.equal([
      'AWSClusterRoleIdentity',
      'AWSClusterControllerIdentity',
    ]);
  });

  it('names a missing or malformed Secret', async () => {
    const missing = await failure(
      memoryStore([staticIdentity('a', 'gone')]).store,
      request('a', 'AWSClusterStaticIdentity'),
    );
    expect(missing).to.be.instanceOf(SecretNotFoundError);
    expect(missing.message).to.equal(
      'Secret keymaster-system/gone of AWSClusterStaticIdentity/a (spec.secretRef) not found',
    );
    const malformed = await failure(
      memoryStore([staticIdentity('a', 'bad')], { 'keymaster-system/bad': { data: {} } }).store,
      request('a', 'AWSClusterStaticIdentity'),
    );
    expect(malformed).to.be.instanceOf(SecretInvalidError);
  });

  it('names the cycle', async () => {
    const { store } = memoryStore([
      role('a', { sourceIdentityRef: { kind: ROLE, name: 'b' } }),
      role('b', { sourceIdentityRef: { kind: ROLE, name: 'c' } }),
      role('c', { sourceIdentityRef: { kind: ROLE, name: 'b' } }),
    ]);
    const error = await failure(store, request('a'));
    expect(error).to.be.instanceOf(IdentityCycleError);
    expect(error.message).to.equal(
      'identity chain has a cycle: AWSClusterRoleIdentity/b -> AWSClusterRoleIdentity/c -> AWSClusterRoleIdentity/b',
    );
  });

  it('refuses chains longer than the limit', async () => {
    const roles = Array.from({ length: 6 }, (_, i) =>
      role(`r${i}`, i < 5 ? { sourceIdentityRef: { kind: ROLE, name: `r${i + 1}` } } : {}),
    );
    const error = await failure(memoryStore([controller(), ...roles]).store, request('r0'));
    expect(error).to.be.instanceOf(ChainTooDeepError).with.property('code', 'ERR_KEYMASTER_IDENTITY_CHAIN_TOO_DEEP');
  });

  it('refuses a chained role asking for more than 3600 seconds, and other invalid specs', async () => {
    const { store } = memoryStore([
      controller(),
      role('hub'),
      role('r', { durationSeconds: 7200, sourceIdentityRef: { kind: ROLE, name: 'hub' } }),
    ]);
    const error = await failure(store, request('r'));
    expect(error).to.be.instanceOf(InvalidIdentityError).with.property('code', 'ERR_KEYMASTER_IDENTITY_INVALID');
    expect(error.message).to.match(/spec\.durationSeconds: .*at most 3600 when sourceIdentityRef is a role/);
  });
});

describe('the chain a refused resolve checked', () => {
  const arn = (name: string) => `arn:aws:iam::111111111111:role/${name}`;
  const chainOf = async (store: IdentityStore, name = 'r') => {
    const error = await failure(store, request(name));
    expect(error).to.be.instanceOf(IdentityError);
    return (error as IdentityError).chain;
  };

  it("holds the links walked and the missing one, the cluster's own identity first", async () => {
    expect(await chainOf(memoryStore([role('r')]).store)).to.deep.equal([
      { kind: ROLE, name: 'r', roleARN: arn('r') },
      { kind: 'AWSClusterControllerIdentity', name: 'default' },
    ]);
  });

  it('holds the link that refused the namespace, with those before it, and no role ARN the namespace may not use', async () => {
    const store = memoryStore([
      controller(),
      role('hub', { allowedNamespaces: { list: ['other'] } }),
      role('r', { sourceIdentityRef: { kind: ROLE, name: 'hub' } }),
    ]).store;
    expect(await chainOf(store)).to.deep.equal([
      { kind: ROLE, name: 'r', roleARN: arn('r') },
      { kind: ROLE, name: 'hub' },
    ]);
  });

  it('holds an identity breaking its schema without the fields it breaks', async () => {
    const store = memoryStore([controller(), role('r', { roleARN: 'not-an-arn' })]).store;
    expect(await chainOf(store)).to.deep.equal([{ kind: ROLE, name: 'r' }]);
  });

  it('holds every link of a cycle once, and the links of a chain too deep', async () => {
    const cycle = memoryStore([
      role('a', { sourceIdentityRef: { kind: ROLE, name: 'b' } }),
      role('b', { sourceIdentityRef: { kind: ROLE, name: 'a' } }),
    ]).store;
    expect((await chainOf(cycle, 'a')).map(({ name }) => name)).to.deep.equal(['a', 'b']);
    const roles = Array.from({ length: 6 }, (_, i) =>
      role(`r${i}`, i < 5 ? { sourceIdentityRef: { kind: ROLE, name: `r${i + 1}` } } : {}),
    );
    const deep = memoryStore([controller(), ...roles]).store;
    expect((await chainOf(deep, 'r0')).map(({ name }) => name)).to.deep.equal(['r0', 'r1', 'r2', 'r3', 'r4']);
  });
});

describe('resolveChain touched', () => {
  it('records every identity and Secret looked up, the missing one included', async () => {
    const { store } = memoryStore(
      [
        staticIdentity('s', 's-keys'),
        role('r', { sourceIdentityRef: { kind: 'AWSClusterStaticIdentity', name: 's' } }),
      ],
      {
        'keymaster-system/s-keys': keys('AKIAEXAMPLE000000001'),
      },
    );
    const touched = new Set<string>();
    await resolveChain(store, request('r'), touched);
    expect([...touched]).to.deep.equal(['AWSClusterRoleIdentity/r', 'AWSClusterStaticIdentity/s', 'Secret/s-keys']);
    const missing = new Set<string>();
    await resolveChain(memoryStore([role('r')]).store, request('r'), missing).catch(() => undefined);
    expect([...missing]).to.deep.equal(['AWSClusterRoleIdentity/r', 'AWSClusterControllerIdentity/default']);
  });
});

describe('chainDependencies', () => {
  it('lists what a chain reaches, up to a refusal, without failing', async () => {
    const { store } = memoryStore([
      controller({ list: ['other'] }),
      role('hub'),
      role('r', { sourceIdentityRef: { kind: ROLE, name: 'hub' } }),
    ]);
    expect(await chainDependencies(store, request('r'))).to.deep.equal([
      'AWSClusterRoleIdentity/r',
      'AWSClusterRoleIdentity/hub',
      'AWSClusterControllerIdentity/default',
    ]);
  });
});

describe('chainReach', () => {
  it('gives the identities in chain order and the Secrets, typed, up to a missing link', async () => {
    const { store } = memoryStore(
      [
        staticIdentity('s', 's-keys'),
        role('r', { sourceIdentityRef: { kind: 'AWSClusterStaticIdentity', name: 's' } }),
      ],
      { 'keymaster-system/s-keys': keys('AKIAEXAMPLE000000001') },
    );
    expect(await chainReach(store, request('r'))).to.deep.equal({
      identities: [
        { kind: ROLE, name: 'r' },
        { kind: 'AWSClusterStaticIdentity', name: 's' },
      ],
      secrets: ['s-keys'],
    });
    expect(await chainReach(memoryStore([role('r')]).store, request('r'))).to.deep.equal({
      identities: [
        { kind: ROLE, name: 'r' },
        { kind: 'AWSClusterControllerIdentity', name: 'default' },
      ],
      secrets: [],
    });
  });

  it('stops at a cycle, each identity once', async () => {
    const { store } = memoryStore([
      role('a', { sourceIdentityRef: { kind: ROLE, name: 'b' } }),
      role('b', { sourceIdentityRef: { kind: ROLE, name: 'a' } }),
    ]);
    expect((await chainReach(store, request('a'))).identities).to.deep.equal([
      { kind: ROLE, name: 'a' },
      { kind: ROLE, name: 'b' },
    ]);
  });
});

describe('an identity being deleted', () => {
  const DELETED_AT = '2026-03-01T12:00:00Z';
  const deleting = <T extends IdentityObject>(identity: T): T => ({
    ...identity,
    metadata: { ...identity.metadata, deletionTimestamp: DELETED_AT },
  });
  const older = { key: 'tenant-a/old', createdAt: '2026-03-01T11:59:59Z' };
  const newer = { key: 'tenant-a/new', createdAt: '2026-03-01T12:00:01Z' };

  it('serves a cluster created before its deletion began, and refuses a newer one, naming the identity', async () => {
    const { store } = memoryStore([controller(), deleting(role('r'))]);
    const links = await resolveChain(store, { ...request('r'), cluster: older });
    expect(links.map(({ name }) => name)).to.deep.equal(['r', 'default']);
    const error = await failure(store, { ...request('r'), cluster: newer });
    expect(error).to.be.instanceOf(IdentityDeletingError).with.property('code', 'ERR_KEYMASTER_IDENTITY_DELETING');
    expect(error).to.have.property('depth', 0);
    expect(error.message).to.equal('AWSClusterRoleIdentity/r is being deleted and accepts no new AWSClusters');
    expect((error as IdentityDeletingError).hint).to.equal(
      'Point spec.identityRef at another identity that allows namespace "tenant-a" (ask the platform team which ' +
        'replaces AWSClusterRoleIdentity/r): an identity being deleted serves only the AWSClusters that used it ' +
        'before its deletion began.',
    );
  });

  it('serves a cluster created in the second the deletion began, unless remembered as not a user', async () => {
    const identity = deleting(role('r'));
    const { store } = memoryStore([controller(), identity]);
    const sameSecond = { key: 'tenant-a/x', createdAt: DELETED_AT };
    await resolveChain(store, { ...request('r'), cluster: sameSecond });
    const usersAtDeletion = () => new Set(['tenant-a/old']);
    const error = await failure(store, { ...request('r'), cluster: sameSecond, usersAtDeletion });
    expect(error).to.be.instanceOf(IdentityDeletingError);
  });

  it('refuses at a deeper link too, and reads no Secret of a refused static identity', async () => {
    const deeper = await failure(memoryStore([deleting(controller()), role('r')]).store, {
      ...request('r'),
      cluster: newer,
    });
    expect(deeper).to.be.instanceOf(IdentityDeletingError).with.property('depth', 1);
    expect(deeper.message).to.equal(
      "AWSClusterControllerIdentity/default (link 2 of the chain, a source of the cluster's identity) is being deleted and accepts no new AWSClusters",
    );
    const { store, reads } = memoryStore([deleting(staticIdentity('s', 's-keys'))], {
      'keymaster-system/s-keys': keys('AKIAEXAMPLE000000001'),
    });
    await failure(store, { ...request('s', 'AWSClusterStaticIdentity'), cluster: newer });
    expect(reads.secrets).to.deep.equal([]);
  });

  it('refuses an older cluster that was not among its users when the controller saw the deletion', async () => {
    const identity = deleting(role('r'));
    const { store } = memoryStore([controller(), identity]);
    const remembered = new Set(['tenant-a/old']);
    const usersAtDeletion = (of: IdentityObject) => (of === identity ? remembered : undefined);
    await resolveChain(store, { ...request('r'), cluster: older, usersAtDeletion });
    const repointed = { key: 'tenant-a/repointed', createdAt: older.createdAt };
    const error = await failure(store, { ...request('r'), cluster: repointed, usersAtDeletion });
    expect(error).to.be.instanceOf(IdentityDeletingError);
  });

  it('is still reached by chainDependencies, which checks no cluster', async () => {
    const { store } = memoryStore([controller(), deleting(role('r'))]);
    expect(await chainDependencies(store, request('r'))).to.deep.equal([
      'AWSClusterRoleIdentity/r',
      'AWSClusterControllerIdentity/default',
    ]);
  });
});
