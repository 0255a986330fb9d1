import {
  API_VERSION,
  CAPA_GROUP,
  GROUP,
  type AWSCluster,
  type ClusterIdentityReference,
  type IdentityKind,
  type IdentityReference,
} from '@keymaster/api';
import {
  CAPA_API_VERSION,
  chainReach,
  groupOf,
  type IdentityObject,
  type IdentityStore,
  type LinkName,
  type NamespaceInfo,
} from '@keymaster/identity';
import { expect } from 'chai';
import { ChainIndex } from '../../src/awsclusteridentity/chain-index.js';

const ROLE = 'AWSClusterRoleIdentity' as const;
const STATIC = 'AWSClusterStaticIdentity' as const;
const CONTROLLER = 'AWSClusterControllerIdentity' as const;

const identity = (kind: IdentityKind, name: string, spec: Record<string, unknown>): IdentityObject =>
  ({ apiVersion: API_VERSION, kind, metadata: { name }, spec: { allowedNamespaces: {}, ...spec } }) as IdentityObject;
const role = (name: string, source?: IdentityReference, spec: Record<string, unknown> = {}) =>
  identity(ROLE, name, {
    roleARN: `arn:aws:iam::111111111111:role/${name}`,
    ...(source ? { sourceIdentityRef: source } : {}),
    ...spec,
  });
const staticIdentity = (name: string, secretRef: string) => identity(STATIC, name, { secretRef });

const cluster = (namespace: string, name: string, identityRef?: ClusterIdentityReference): AWSCluster => ({
  apiVersion: API_VERSION,
  kind: 'AWSCluster',
  metadata: { namespace, name },
  spec: { region: 'us-west-2', ...(identityRef ? { identityRef } : {}) },
});

/** The caches, as plain maps the test edits; the index walks them with the real chainReach. */
function world() {
  const identities = new Map<string, IdentityObject>();
  const namespaces = new Map<string, NamespaceInfo>();
  const store: IdentityStore = {
    getIdentity: (kind, name) => Promise.resolve(identities.get(`${kind}/${name}`)),
    listIdentities: () => Promise.resolve([...identities.values()]),
    getSecret: () => Promise.resolve(undefined),
    getNamespace: (name) => Promise.resolve(namespaces.get(name)),
  };
  const walks: string[] = [];
  const index = new ChainIndex((object) => {
    walks.push(`${object.metadata.namespace}/${object.metadata.name}`);
    return chainReach(store, {
      namespace: object.metadata.namespace ?? '',
      identityRef: object.spec.identityRef,
      controllerNamespace: 'keymaster-system',
    });
  });
  return {
    index,
    walks,
    put: (object: IdentityObject) => identities.set(`${object.kind}/${object.metadata.name}`, object),
    drop: (object: IdentityObject) => identities.delete(`${object.kind}/${object.metadata.name}`),
    label: (name: string, labels: Record<string, string>) => namespaces.set(name, { name, labels }),
  };
}

const names = (requests: { namespace?: string; name: string }[]) =>
  requests.map(({ namespace, name }) => `${namespace}/${name}`).sort();
const ids = (identities: LinkName[]) => identities.map(({ kind, name }) => `${kind}/${name}`).sort();

describe('ChainIndex', () => {
  it("files a CAPA identity apart from Keymaster's of the same kind and name", async () => {
    const capa = (object: IdentityObject) => ({ ...object, apiVersion: CAPA_API_VERSION }) as unknown as IdentityObject;
    const identities = [
      role('x'),
      capa(role('x')),
      identity(CONTROLLER, 'default', {}),
      capa(identity(CONTROLLER, 'default', {})),
    ];
    // A store keyed by group, as the caches are.
    const store: IdentityStore = {
      getIdentity: (kind, name, _namespace, apiGroup = GROUP) =>
        Promise.resolve(
          identities.find(
            (object) => object.kind === kind && object.metadata.name === name && groupOf(object) === apiGroup,
          ),
        ),
      listIdentities: () => Promise.resolve(identities),
      getSecret: () => Promise.resolve(undefined),
      getNamespace: (name) => Promise.resolve({ name, labels: {} }),
    };
    const index = new ChainIndex((object) =>
      chainReach(store, {
        namespace: object.metadata.namespace ?? '',
        identityRef: object.spec.identityRef,
        controllerNamespace: 'keymaster-system',
      }),
    );
    await index.index(cluster('a', 'keymaster', { kind: ROLE, name: 'x' }));
    await index.index(cluster('b', 'capa', { apiGroup: CAPA_GROUP, kind: ROLE, name: 'x' }));
    expect(names(index.clustersReaching({ kind: ROLE, name: 'x' }))).to.deep.equal(['a/keymaster']);
    expect(names(index.clustersReaching({ apiGroup: CAPA_GROUP, kind: ROLE, name: 'x' }))).to.deep.equal(['b/capa']);
    expect(names(index.clustersReaching({ apiGroup: CAPA_GROUP, kind: CONTROLLER, name: 'default' }))).to.deep.equal([
      'b/capa',
    ]);
  });

  it('files each cluster under every identity and Secret its chain reaches, the root included', async () => {
    const { index, put } = world();
    put(role('hub'));
    put(role('tenant-a', { kind: ROLE, name: 'hub' }));
    put(staticIdentity('keys', 'keys-secret'));
    await index.index(cluster('a', 'one', { kind: ROLE, name: 'tenant-a' }));
    await index.index(cluster('a', 'two', { kind: ROLE, name: 'hub' }));
    await index.index(cluster('b', 'three', { kind: STATIC, name: 'keys' }));
    await index.index(cluster('b', 'four'));

    expect(names(index.clustersReaching({ kind: ROLE, name: 'tenant-a' }))).to.deep.equal(['a/one']);
    expect(names(index.clustersReaching({ kind: ROLE, name: 'hub' }))).to.deep.equal(['a/one', 'a/two']);
    expect(names(index.clustersReaching({ kind: CONTROLLER, name: 'default' }))).to.deep.equal([
      'a/one',
      'a/two',
      'b/four',
    ]);
    expect(names(index.clustersReachingSecret('keys-secret'))).to.deep.equal(['b/three']);
    expect(index.clustersReaching({ kind: STATIC, name: 'other' })).to.deep.equal([]);
  });

  it('counts a missing identity, so that creating it is an event for the cluster', async () => {
    const { index, put } = world();
    const missing = cluster('a', 'one', { kind: ROLE, name: 'later' });
    expect(ids(await index.index(missing))).to.deep.equal([`${ROLE}/later`]);
    expect(names(index.clustersReaching({ kind: ROLE, name: 'later' }))).to.deep.equal(['a/one']);
    expect(index.clustersReaching({ kind: CONTROLLER, name: 'default' })).to.deep.equal([]);

    put(role('later'));
    // Only what changed: `later` is reached before and after (its own event enqueues it), `default` is new.
    expect(ids(await index.index(missing))).to.deep.equal([`${CONTROLLER}/default`]);
    expect(names(index.clustersReaching({ kind: CONTROLLER, name: 'default' }))).to.deep.equal(['a/one']);
  });

  it('moves clusters between entries on a chain edit, and tells the identities on both sides, and no other', async () => {
    const { index, put } = world();
    put(role('old-hub'));
    put(role('new-hub'));
    put(role('tenant', { kind: ROLE, name: 'old-hub' }));
    const clusters = [1, 2, 3].map((n) => cluster('a', `c${n}`, { kind: ROLE, name: 'tenant' }));
    for (const each of clusters) await index.index(each);

    put(role('tenant', { kind: ROLE, name: 'new-hub' }));
    const told = await Promise.all(
      index
        .clustersReaching({ kind: ROLE, name: 'tenant' })
        .map(({ namespace, name }) =>
          index.index(clusters.find((each) => each.metadata.namespace === namespace && each.metadata.name === name)!),
        ),
    );
    // tenant and default stay on the chain: their users did not change.
    expect(ids(told[0]!)).to.deep.equal([`${ROLE}/new-hub`, `${ROLE}/old-hub`]);
    expect(index.clustersReaching({ kind: ROLE, name: 'old-hub' })).to.deep.equal([]);
    expect(names(index.clustersReaching({ kind: ROLE, name: 'new-hub' }))).to.deep.equal(['a/c1', 'a/c2', 'a/c3']);
  });

  it('moves a cluster when its own identityRef changes', async () => {
    const { index, put } = world();
    put(role('x'));
    put(staticIdentity('y', 'y-keys'));
    await index.index(cluster('a', 'c', { kind: ROLE, name: 'x' }));
    expect(ids(await index.index(cluster('a', 'c', { kind: STATIC, name: 'y' })))).to.deep.equal([
      `${CONTROLLER}/default`,
      `${ROLE}/x`,
      `${STATIC}/y`,
    ]);
    expect(index.clustersReaching({ kind: ROLE, name: 'x' })).to.deep.equal([]);
    expect(names(index.clustersReachingSecret('y-keys'))).to.deep.equal(['a/c']);
  });

  it('forgets a deleted cluster everywhere, and a deleted identity keeps its clusters (a missing link)', async () => {
    const { index, put, drop } = world();
    const hub = role('hub');
    put(hub);
    put(role('r', { kind: ROLE, name: 'hub' }));
    const one = cluster('a', 'one', { kind: ROLE, name: 'r' });
    const two = cluster('a', 'two', { kind: ROLE, name: 'r' });
    await index.index(one);
    await index.index(two);

    expect(ids(index.remove(one))).to.deep.equal([`${CONTROLLER}/default`, `${ROLE}/hub`, `${ROLE}/r`]);
    expect(names(index.clustersReaching({ kind: ROLE, name: 'hub' }))).to.deep.equal(['a/two']);

    drop(hub);
    await index.index(two);
    expect(names(index.clustersReaching({ kind: ROLE, name: 'hub' }))).to.deep.equal(['a/two']);
    expect(index.clustersReaching({ kind: CONTROLLER, name: 'default' })).to.deep.equal([]);
    expect(index.reachOf({ namespace: 'a', name: 'one' })).to.deep.equal({ identities: [], secrets: [] });
  });

  it('stops at a cycle: each identity of the loop once', async () => {
    const { index, put } = world();
    put(role('a', { kind: ROLE, name: 'b' }));
    put(role('b', { kind: ROLE, name: 'a' }));
    const looping = cluster('ns', 'loop', { kind: ROLE, name: 'a' });
    expect(ids(await index.index(looping))).to.deep.equal([`${ROLE}/a`, `${ROLE}/b`]);
    expect(names(index.clustersReaching({ kind: ROLE, name: 'b' }))).to.deep.equal(['ns/loop']);

    // The loop broken: b now ends at the controller identity.
    put(role('b'));
    await index.index(looping);
    expect(names(index.clustersReaching({ kind: CONTROLLER, name: 'default' }))).to.deep.equal(['ns/loop']);
  });

  it("stops where a link refuses the namespace, and follows the namespace's labels", async () => {
    const { index, put, label } = world();
    put(role('hub', undefined, { allowedNamespaces: { selector: { matchLabels: { tier: 'gold' } } } }));
    put(role('r', { kind: ROLE, name: 'hub' }));
    const member = cluster('a', 'c', { kind: ROLE, name: 'r' });
    await index.index(member);
    expect(index.clustersReaching({ kind: CONTROLLER, name: 'default' })).to.deep.equal([]);
    label('a', { tier: 'gold' });
    await index.index(member);
    expect(names(index.clustersReaching({ kind: CONTROLLER, name: 'default' }))).to.deep.equal(['a/c']);
  });

  it('keeps the latest walk when an older one of the same cluster ends after it', async () => {
    const { index, put } = world();
    put(role('x'));
    put(role('y'));
    const older = index.index(cluster('a', 'c', { kind: ROLE, name: 'x' }));
    const newer = index.index(cluster('a', 'c', { kind: ROLE, name: 'y' }));
    await Promise.all([newer, older]);
    expect(index.clustersReaching({ kind: ROLE, name: 'x' })).to.deep.equal([]);
    expect(names(index.clustersReaching({ kind: ROLE, name: 'y' }))).to.deep.equal(['a/c']);

    const walking = index.index(cluster('a', 'c', { kind: ROLE, name: 'x' }));
    index.remove(cluster('a', 'c'));
    await walking;
    expect(index.clustersReaching({ kind: ROLE, name: 'x' })).to.deep.equal([]);
  });
});
