import { expect } from 'chai';
import {
  checkChain,
  IdentityCycleError,
  IdentityDeletingError,
  IdentityNotFoundError,
  InvalidIdentityError,
  NamespaceNotAllowedError,
  SecretInvalidError,
  SecretNotFoundError,
  type LinkCheck,
} from '../src/index.js';
import { controller, keys, memoryStore, role, serviceAccountIdentity, staticIdentity } from './fixtures.js';

const ROLE = 'AWSClusterRoleIdentity' as const;
const request = (name: string, kind: 'AWSClusterRoleIdentity' | 'AWSClusterStaticIdentity' = ROLE) => ({
  namespace: 'tenant-c',
  identityRef: { kind, name },
  controllerNamespace: 'keymaster-system',
});
/** Each link as `Kind/name: ERR_CODE, ...`. */
const verdicts = (checks: LinkCheck[]) =>
  checks.map(({ kind, name, problems }) => `${kind}/${name}: ${problems.map(({ code }) => code).join(', ') || 'ok'}`);

describe('checkChain', () => {
  it('finds every link that refuses the namespace at once, where resolving stops at the first', async () => {
    const { store } = memoryStore(
      [
        controller({ list: ['tenant-b'] }),
        role('hub', { allowedNamespaces: { selector: { matchLabels: { 'keymaster.dev/tenant': 'tenant-b' } } } }),
        role('tenant-b', { sourceIdentityRef: { kind: ROLE, name: 'hub' }, allowedNamespaces: { list: ['tenant-b'] } }),
      ],
      {},
      [{ name: 'tenant-c', labels: { 'keymaster.dev/tenant': 'tenant-c' } }],
    );
    const checks = await checkChain(store, request('tenant-b'));
    expect(verdicts(checks)).to.deep.equal([
      'AWSClusterRoleIdentity/tenant-b: ERR_KEYMASTER_NAMESPACE_NOT_ALLOWED',
      'AWSClusterRoleIdentity/hub: ERR_KEYMASTER_NAMESPACE_NOT_ALLOWED',
      'AWSClusterControllerIdentity/default: ERR_KEYMASTER_NAMESPACE_NOT_ALLOWED',
    ]);
    const [own, hub, root] = checks.map(({ problems }) => problems[0]);
    expect(own).to.be.instanceOf(NamespaceNotAllowedError).with.property('depth', 0);
    expect(hub).to.be.instanceOf(NamespaceNotAllowedError).with.property('depth', 1);
    expect(root).to.be.instanceOf(NamespaceNotAllowedError).with.property('depth', 2);
    // Each verdict carries its fix.
    expect(hub!.hint).to.equal(
      'Add "tenant-c" to spec.allowedNamespaces of AWSClusterRoleIdentity/hub (list or selector), or use another identity. Every link of a chain must allow the namespace.',
    );
    expect(checks.map(({ identity }) => identity?.metadata.name)).to.deep.equal(['tenant-b', 'hub', 'default']);
  });

  it('says every link is fine when the chain is', async () => {
    const { store } = memoryStore([
      controller(),
      role('hub'),
      role('t', { sourceIdentityRef: { kind: ROLE, name: 'hub' } }),
    ]);
    expect(verdicts(await checkChain(store, request('t')))).to.deep.equal([
      'AWSClusterRoleIdentity/t: ok',
      'AWSClusterRoleIdentity/hub: ok',
      'AWSClusterControllerIdentity/default: ok',
    ]);
  });

  it('checks the Secret of a static identity that refuses the namespace, and never returns the keys', async () => {
    const missing = memoryStore([staticIdentity('a', 'a-keys', { list: ['tenant-a'] })]);
    const checks = await checkChain(missing.store, request('a', 'AWSClusterStaticIdentity'));
    expect(checks[0]!.problems.map((problem) => problem.constructor)).to.deep.equal([
      NamespaceNotAllowedError,
      SecretNotFoundError,
    ]);
    expect(missing.reads.secrets, 'from the controller namespace only').to.deep.equal(['keymaster-system/a-keys']);

    const broken = memoryStore([staticIdentity('a', 'a-keys')], {
      'keymaster-system/a-keys': keys('not-an-access-key', 'wJalrXUtnFEMI-K7MDENG'),
    });
    const [link] = await checkChain(broken.store, request('a', 'AWSClusterStaticIdentity'));
    expect(link!.problems[0]).to.be.instanceOf(SecretInvalidError);
    expect(JSON.stringify(link)).to.not.include('wJalrXUtnFEMI').and.not.include('material');
  });

  it('stops where the source is unknown: a missing or an invalid identity', async () => {
    const missing = await checkChain(memoryStore([role('t', { allowedNamespaces: { list: [] } })]).store, request('t'));
    expect(verdicts(missing)).to.deep.equal([
      'AWSClusterRoleIdentity/t: ERR_KEYMASTER_NAMESPACE_NOT_ALLOWED',
      'AWSClusterControllerIdentity/default: ERR_KEYMASTER_IDENTITY_NOT_FOUND',
    ]);
    expect(missing[1]!.problems[0]).to.be.instanceOf(IdentityNotFoundError);
    expect(missing[1]).to.not.have.property('identity');

    const invalid = await checkChain(
      memoryStore([controller(), role('t', { roleARN: 'not-an-arn' })]).store,
      request('t'),
    );
    expect(invalid).to.have.length(1);
    expect(invalid[0]!.problems[0]).to.be.instanceOf(InvalidIdentityError);
  });

  it('names a cycle once and stops there', async () => {
    const { store } = memoryStore([
      role('b', { sourceIdentityRef: { kind: ROLE, name: 'c' } }),
      role('c', { sourceIdentityRef: { kind: ROLE, name: 'b' }, allowedNamespaces: { list: [] } }),
    ]);
    const checks = await checkChain(store, request('b'));
    expect(verdicts(checks)).to.deep.equal([
      'AWSClusterRoleIdentity/b: ok',
      'AWSClusterRoleIdentity/c: ERR_KEYMASTER_NAMESPACE_NOT_ALLOWED',
      'AWSClusterRoleIdentity/b: ERR_KEYMASTER_IDENTITY_CYCLE',
    ]);
    expect(checks[2]!.problems[0]).to.be.instanceOf(IdentityCycleError);
  });

  it("refuses a cluster newer than a link's deletion, and goes on", async () => {
    const deleting = role('t', {});
    deleting.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
    const { store } = memoryStore([controller({ list: [] }), deleting]);
    const checks = await checkChain(store, {
      ...request('t'),
      cluster: { key: 'tenant-c/new', createdAt: '2026-02-01T00:00:00Z' },
    });
    expect(checks[0]!.problems[0]).to.be.instanceOf(IdentityDeletingError);
    expect(checks[1]!.problems[0]).to.be.instanceOf(NamespaceNotAllowedError);
  });
});

describe('checkChain with a namespaced AWSServiceAccountIdentity', () => {
  const OWN = { kind: 'AWSServiceAccountIdentity' as const, name: 'own' };
  const from = (namespace: string, identityRef: { kind: typeof ROLE | typeof OWN.kind; name: string }) => ({
    namespace,
    identityRef,
    controllerNamespace: 'keymaster-system',
  });

  it('finds it from its own namespace only: another namespace naming it finds nothing of it', async () => {
    const { store } = memoryStore([serviceAccountIdentity('tenant-a', 'own')]);
    expect(verdicts(await checkChain(store, from('tenant-a', OWN)))).to.deep.equal([
      'AWSServiceAccountIdentity/own: ok',
    ]);
    const [refused] = await checkChain(store, from('tenant-b', OWN));
    expect(refused!.identity).to.equal(undefined);
    expect(refused!.problems[0]).to.be.instanceOf(IdentityNotFoundError);
  });

  it('sources a role only for the namespaces the role allows, and always its own namespace', async () => {
    const { store } = memoryStore([
      serviceAccountIdentity('tenant-a', 'own'),
      serviceAccountIdentity('tenant-b', 'own'),
      role('platform', { sourceIdentityRef: OWN, allowedNamespaces: { list: ['tenant-b'] } }),
    ]);
    const platform = { kind: ROLE, name: 'platform' };
    // Tenant A's own identity cannot borrow a platform role that does not allow tenant A.
    expect(verdicts(await checkChain(store, from('tenant-a', platform)))).to.deep.equal([
      'AWSClusterRoleIdentity/platform: ERR_KEYMASTER_NAMESPACE_NOT_ALLOWED',
      'AWSServiceAccountIdentity/own: ok',
    ]);
    // Tenant B, allowed, reaches its own identity of that name, never tenant A's.
    const checks = await checkChain(store, from('tenant-b', platform));
    expect(verdicts(checks)).to.deep.equal([
      'AWSClusterRoleIdentity/platform: ok',
      'AWSServiceAccountIdentity/own: ok',
    ]);
    expect(checks[1]!.identity?.metadata.namespace).to.equal('tenant-b');
  });

  it('vends to its own namespace when it opts in, as any role session', async () => {
    const { store } = memoryStore([
      serviceAccountIdentity('tenant-a', 'own', { credentialVending: { allowedNamespaces: {} } }),
    ]);
    expect(verdicts(await checkChain(store, { ...from('tenant-a', OWN), vending: true }))).to.deep.equal([
      'AWSServiceAccountIdentity/own: ok',
    ]);
  });
});
