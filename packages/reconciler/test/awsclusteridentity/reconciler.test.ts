import { ApiException, type V1OwnerReference, type V1Secret } from '@kubernetes/client-node';
import { expect } from 'chai';
import {
  API_VERSION,
  type AWSAccountBinding,
  type AWSCluster,
  type AWSClusterRoleIdentity,
  type AWSClusterRoleIdentitySpec,
  type IdentityKind,
} from '@keymaster/api';
import type { ControllerCredentialsCheck, IdentityObject } from '@keymaster/identity';
import { IdentitySightings } from '../../src/awscluster/identity-sightings.js';
import { DeletingIdentities } from '../../src/awsclusteridentity/deletions.js';
import { CLAIMED_ACCOUNT, CLAIMED_AT } from '../../src/awsclusteridentity/legacy-account-claim.js';
import { IDENTITY_FINALIZER, IdentityReconciler } from '../../src/awsclusteridentity/reconciler.js';
import type { Request } from '../../src/runtime/controller.js';
import { FakeCaches } from '../support/fake-caches.js';
import { ACCOUNT, fakeSession } from '../support/fake-resolver.js';
import { quietLogger } from '../support/quiet-logger.js';
import { expectRow, reasonsOf, reasonsWithoutRow, type ReconcileRow } from '../support/reconcile-rows.js';
import { RecordingEvents } from '../support/recording-events.js';
import { RecordingWriter } from '../support/recording-writer.js';

const NOW = new Date('2026-05-01T12:00:00Z');
const TENANT_LABEL = 'keymaster.dev/tenant';
const CONTROLLER_NAMESPACE = 'keymaster-system';

const metadata = (name: string, fields: Partial<IdentityObject['metadata']> = {}): IdentityObject['metadata'] => ({
  name,
  uid: `uid-${name}`,
  generation: 1,
  resourceVersion: '3',
  creationTimestamp: '2026-01-01T00:00:00Z',
  ...fields,
});
const role = (
  fields: Partial<IdentityObject['metadata']> = {},
  spec: Partial<AWSClusterRoleIdentitySpec> = {},
): AWSClusterRoleIdentity => ({
  apiVersion: API_VERSION,
  kind: 'AWSClusterRoleIdentity',
  metadata: metadata('tenant-a', fields),
  spec: { roleARN: `arn:aws:iam::${ACCOUNT}:role/tenant-a`, ...spec },
});
const controller = (): IdentityObject => ({
  apiVersion: API_VERSION,
  kind: 'AWSClusterControllerIdentity',
  metadata: metadata('default'),
  spec: {},
});
const staticIdentity = (): IdentityObject => ({
  apiVersion: API_VERSION,
  kind: 'AWSClusterStaticIdentity',
  metadata: metadata('keys'),
  spec: { secretRef: 'keys' },
});
/** The static identity's Secret, owned by it as releases up to 0.2.0 did, and by `others`. */
const legacyOwnedSecret = (...others: V1OwnerReference[]): V1Secret => ({
  metadata: {
    name: 'keys',
    namespace: CONTROLLER_NAMESPACE,
    resourceVersion: '5',
    ownerReferences: [
      { apiVersion: API_VERSION, kind: 'AWSClusterStaticIdentity', name: 'keys', uid: 'uid-keys' },
      ...others,
    ],
  },
});
const user = (name: string, creationTimestamp = '2026-02-01T00:00:00Z'): AWSCluster => ({
  apiVersion: API_VERSION,
  kind: 'AWSCluster',
  metadata: { name, namespace: 'tenant-a', uid: `uid-${name}`, creationTimestamp },
  spec: { region: 'eu-west-1' },
});
const DELETING = { deletionTimestamp: '2026-03-01T00:00:00Z', finalizers: [IDENTITY_FINALIZER.name] };

/** One identity reconcile's world of fakes. */
class IdentityWorld {
  readonly caches = new FakeCaches();
  readonly writer = new RecordingWriter();
  readonly events = new RecordingEvents();
  readonly deletions = new DeletingIdentities();
  readonly sightings = new IdentitySightings(() => undefined);
  /** The clusters whose chain reaches the identity under test. */
  users: AWSCluster[] = [];
  controllerCredentials: ControllerCredentialsCheck | undefined;

  reconcile(kind: IdentityKind, name: string, namespace?: string) {
    const reaching = (): Request[] =>
      this.users.map(({ metadata }) => ({ namespace: metadata.namespace, name: metadata.name ?? '' }));
    for (const cluster of this.users) this.caches.clusters.put(cluster);
    return new IdentityReconciler(kind, {
      caches: this.caches,
      chains: { clustersReaching: reaching },
      writer: this.writer,
      events: this.events,
      sightings: this.sightings,
      deletions: this.deletions,
      controllerNamespace: CONTROLLER_NAMESPACE,
      controllerCredentials: () => this.controllerCredentials,
      now: () => NOW,
      logger: quietLogger(),
      tenantLabel: TENANT_LABEL,
    }).reconcile(namespace === undefined ? { name } : { namespace, name });
  }
}

interface Row extends ReconcileRow {
  /** The identity reconciled, put in the cache unless `absent`. */
  identity: IdentityObject;
  absent?: boolean;
  given?: (world: IdentityWorld) => void;
  writes: string[];
}

const claimed = (labels: Record<string, string> = { [TENANT_LABEL]: 'tenant-a' }) =>
  role({ annotations: { [CLAIMED_ACCOUNT]: ACCOUNT }, labels });

const ROWS: Row[] = [
  { title: 'an identity gone from the cache writes nothing', identity: role(), absent: true, writes: [] },
  {
    title: 'an identity no cluster uses gets its status: counts, and its own conditions',
    identity: role(),
    writes: ['replaceStatus AWSClusterRoleIdentity/tenant-a'],
    reasons: { ExternalIDConfidential: 'NoExternalID' },
  },
  {
    title: 'a plain externalID in the spec is not confidential',
    identity: role({}, { externalID: 'plain' }),
    writes: ['replaceStatus AWSClusterRoleIdentity/tenant-a'],
    reasons: { ExternalIDConfidential: 'ExternalIDInSpec' },
  },
  {
    title: "an externalID in the controller's Secret is",
    identity: role({}, { externalIDSecretRef: { name: 'tenant-a-external-id', key: 'externalID' } }),
    writes: ['replaceStatus AWSClusterRoleIdentity/tenant-a'],
    reasons: { ExternalIDConfidential: 'ExternalIDInSecret' },
  },
  {
    title: "the controller identity says where the controller's credentials come from",
    identity: controller(),
    given: (world) => (world.controllerCredentials = { source: 'web-identity' }),
    writes: ['replaceStatus AWSClusterControllerIdentity/default'],
    reasons: { CredentialsAvailable: 'CredentialsFound' },
  },
  {
    title: 'the controller identity says the controller found no credentials of its own',
    identity: controller(),
    given: (world) => (world.controllerCredentials = { source: 'none', error: 'no source' }),
    writes: ['replaceStatus AWSClusterControllerIdentity/default'],
    reasons: { CredentialsAvailable: 'NoCredentials' },
  },
  {
    title: 'an identity clusters use gets the in-use finalizer first',
    identity: role(),
    given: (world) => (world.users = [user('prod')]),
    writes: ['setFinalizers AWSClusterRoleIdentity/tenant-a'],
  },
  {
    title: 'an identity no cluster uses any more lets the finalizer go',
    identity: role({ finalizers: [IDENTITY_FINALIZER.name] }),
    writes: ['setFinalizers AWSClusterRoleIdentity/tenant-a'],
  },
  {
    title: 'a deletion first seen tells each user, and is blocked while they use it',
    identity: role(DELETING),
    given: (world) => (world.users = [user('prod'), user('staging')]),
    writes: ['replaceStatus AWSClusterRoleIdentity/tenant-a'],
    reasons: { ExternalIDConfidential: 'NoExternalID' },
    events: ['Warning IdentityDeleting', 'Warning IdentityDeleting', 'Warning DeletionBlocked'],
  },
  {
    title: 'a cluster created after the deletion began does not keep the identity',
    identity: role(DELETING),
    given: (world) => (world.users = [user('late', '2026-04-01T00:00:00Z')]),
    writes: ['setFinalizers AWSClusterRoleIdentity/tenant-a'],
    events: [],
  },
  {
    title: "an earlier release's owner on a static identity's Secret is removed first",
    identity: staticIdentity(),
    given: (world) => world.caches.secrets.put(legacyOwnedSecret()),
    writes: ['setSecretOwners Secret/keys', 'replaceStatus AWSClusterStaticIdentity/keys'],
    reasons: {},
  },
  {
    title: "an earlier release's account claim becomes the account's binding",
    identity: claimed(),
    writes: ['createClusterScoped AWSAccountBinding/111111111111'],
    events: ['Normal AccountClaimConverted'],
  },
  {
    title: 'a claim whose binding exists is removed',
    identity: claimed(),
    given: (world) => world.caches.accountBindings.put(binding()),
    writes: ['removeAnnotations AWSClusterRoleIdentity/tenant-a'],
  },
  {
    title: 'a claim without a tenant never counted, and is removed',
    identity: claimed({}),
    writes: ['removeAnnotations AWSClusterRoleIdentity/tenant-a'],
  },
  {
    title: 'a binding created meanwhile wins over the conversion',
    identity: claimed(),
    given: (world) => world.writer.failing.set('createClusterScoped', new ApiException(409, 'conflict', '{}', {})),
    writes: ['createClusterScoped AWSAccountBinding/111111111111', 'replaceStatus AWSClusterRoleIdentity/tenant-a'],
    reasons: { ExternalIDConfidential: 'NoExternalID' },
    events: [],
  },
];

function binding(): AWSAccountBinding {
  return {
    apiVersion: API_VERSION,
    kind: 'AWSAccountBinding',
    metadata: { name: ACCOUNT },
    spec: { tenants: ['tenant-a'] },
  };
}

const IDENTITY_REASONS = reasonsOf(['CredentialsAvailable', 'ExternalIDConfidential']);

describe('the identity reconcile, branch by branch', () => {
  for (const row of ROWS) {
    it(row.title, async () => {
      const world = new IdentityWorld();
      if (!row.absent) world.caches.withIdentities(row.identity);
      row.given?.(world);
      expectRow(row, world, await world.reconcile(row.identity.kind, row.identity.metadata.name ?? ''));
    });
  }

  it('has a row for every reason of every condition', () => {
    expect(reasonsWithoutRow(ROWS, IDENTITY_REASONS)).to.deep.equal([]);
  });

  it('adds and removes the in-use finalizer, and no other', async () => {
    const world = new IdentityWorld();
    world.caches.withIdentities(role({ finalizers: ['other.example/keep'] }));
    world.users = [user('prod')];
    await world.reconcile('AWSClusterRoleIdentity', 'tenant-a');
    const unused = new IdentityWorld();
    unused.caches.withIdentities(role({ finalizers: ['other.example/keep', IDENTITY_FINALIZER.name] }));
    await unused.reconcile('AWSClusterRoleIdentity', 'tenant-a');
    expect([world, unused].map(({ writer }) => writer.writes[0]?.finalizers)).to.deep.equal([
      ['other.example/keep', IDENTITY_FINALIZER.name],
      ['other.example/keep'],
    ]);
  });

  it("removes only the earlier release's owner from a Secret, and only the claim's annotations", async () => {
    const world = new IdentityWorld();
    const kept = { apiVersion: 'v1', kind: 'ConfigMap', name: 'other', uid: 'uid-other' };
    world.caches.withIdentities(staticIdentity()).secrets.put(legacyOwnedSecret(kept));
    await world.reconcile('AWSClusterStaticIdentity', 'keys');
    const claim = new IdentityWorld();
    claim.caches.withIdentities(claimed({}));
    await claim.reconcile('AWSClusterRoleIdentity', 'tenant-a');
    expect(world.writer.writes[0]?.ownerReferences).to.deep.equal([kept]);
    expect(claim.writer.writes[0]?.keys).to.deep.equal([CLAIMED_ACCOUNT, CLAIMED_AT]);
  });

  it('counts users in status, and names none of them', async () => {
    const world = new IdentityWorld();
    world.caches.withIdentities(role({ finalizers: [IDENTITY_FINALIZER.name] }));
    world.users = [user('prod'), { ...user('other'), metadata: { ...user('other').metadata, namespace: 'tenant-b' } }];
    await world.reconcile('AWSClusterRoleIdentity', 'tenant-a');
    expect(world.writer.status).to.deep.include({ clusterCount: 2, namespaceCount: 2 });
    expect(JSON.stringify(world.writer.status)).to.not.include('prod').and.not.include('tenant-b');
  });

  it("counts a tenant's own AWSServiceAccountIdentity's users of its namespace only, and shows its own sessions", async () => {
    const own = (namespace: string): IdentityObject => ({
      apiVersion: API_VERSION,
      kind: 'AWSServiceAccountIdentity',
      metadata: metadata('own', { namespace, uid: `uid-own-${namespace}`, finalizers: [IDENTITY_FINALIZER.name] }),
      spec: { roleARN: `arn:aws:iam::${ACCOUNT}:role/own`, serviceAccountName: 'keymaster' },
    });
    const world = new IdentityWorld();
    world.caches.withIdentities(own('tenant-a'), own('tenant-b'));
    const elsewhere = { ...user('other'), metadata: { ...user('other').metadata, namespace: 'tenant-b' } };
    // Both namespaces' clusters reach an identity of that name: each its own namespace's.
    world.users = [user('prod'), elsewhere];
    const link = [{ kind: 'AWSServiceAccountIdentity', name: 'own' }];
    world.sightings.saw(
      { ...fakeSession(link), principalArn: 'arn:aws:sts::333333333333:assumed-role/b/x' },
      'tenant-b',
    );
    await world.reconcile('AWSServiceAccountIdentity', 'own', 'tenant-a');
    expect(world.writer.status).to.deep.include({ clusterCount: 1, namespaceCount: 1 });
    expect(world.writer.status, "tenant B's session is not tenant A's").to.not.have.property('principalARN');
    world.sightings.saw(fakeSession(link), 'tenant-a');
    await world.reconcile('AWSServiceAccountIdentity', 'own', 'tenant-a');
    expect(world.writer.status).to.deep.include({ accountID: ACCOUNT, clusterCount: 1 });
  });

  it('shows the account and principal clusters last acted as', async () => {
    const world = new IdentityWorld();
    world.caches.withIdentities(role());
    world.sightings.saw(fakeSession([{ kind: 'AWSClusterRoleIdentity', name: 'tenant-a' }]), 'tenant-a');
    await world.reconcile('AWSClusterRoleIdentity', 'tenant-a');
    expect(world.writer.status).to.deep.include({ accountID: ACCOUNT });
  });

  it('remembers the users of a deletion it saw first, and keeps serving only them', async () => {
    const world = new IdentityWorld();
    world.caches.withIdentities(role(DELETING));
    world.users = [user('prod')];
    await world.reconcile('AWSClusterRoleIdentity', 'tenant-a');
    world.users = [user('prod'), user('moved-in')];
    await world.reconcile('AWSClusterRoleIdentity', 'tenant-a');
    expect(world.writer.status).to.deep.include({ clusterCount: 1 });
    expect(
      world.events.recorded.filter(({ reason }) => reason === 'IdentityDeleting').map(({ target }) => target),
    ).to.deep.equal(['AWSCluster/prod']);
  });
});
