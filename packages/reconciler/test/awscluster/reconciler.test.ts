import { expect } from 'chai';
import {
  ADOPT_LABEL,
  ADOPT_LABEL_VALUE,
  API_VERSION,
  PAUSED_ANNOTATION,
  TagsInSyncReason,
  type AWSAccountBinding,
  type AWSCluster,
  type AWSClusterLedger,
  type AWSTagPolicy,
} from '@keymaster/api';
import { IdentityNotFoundError, StsRateLimitedError, type IdentityObject } from '@keymaster/identity';
import type { DiscoveredResources } from '@keymaster/tagging';
import { ClusterNames } from '../../src/awscluster/cluster-names.js';
import { IdentitySightings } from '../../src/awscluster/identity-sightings.js';
import {
  AWSClusterReconciler,
  CLUSTER_FINALIZER,
  type AWSClusterReconcilerDeps,
} from '../../src/awscluster/reconciler.js';
import { createTagSync, type SyncTags, type TagOutcome } from '../../src/awscluster/tags.js';
import type { ClusterAPICluster } from '../../src/adoption/index.js';
import type { KeymasterObject } from '../../src/kube/resources.js';
import type { Result } from '../../src/runtime/controller.js';
import { FakeCaches } from '../support/fake-caches.js';
import { FakeLedgers } from '../support/fake-ledgers.js';
import { ACCOUNT, FakeResolver, fakeSession } from '../support/fake-resolver.js';
import { FakeTagWork } from '../support/fake-tag-work.js';
import { identityFailures } from '../support/identity-failures.js';
import { quietLogger } from '../support/quiet-logger.js';
import { expectRow, reasonsOf, reasonsWithoutRow, type ReconcileRow } from '../support/reconcile-rows.js';
import { RecordingEvents } from '../support/recording-events.js';
import { RecordingWriter } from '../support/recording-writer.js';

const NOW = new Date('2026-05-01T12:00:00Z');
const TENANT_LABEL = 'keymaster.dev/tenant';
const ROLE = { kind: 'AWSClusterRoleIdentity', name: 'tenant-a' } as const;
const SOURCE = { kind: 'AWSClusterRoleIdentity', name: 'platform' } as const;

const cluster = (
  name = 'prod',
  fields: Partial<AWSCluster['metadata']> = {},
  spec: Partial<AWSCluster['spec']> = {},
): AWSCluster => ({
  apiVersion: API_VERSION,
  kind: 'AWSCluster',
  metadata: {
    name,
    namespace: 'tenant-a',
    uid: `uid-${name}`,
    generation: 1,
    resourceVersion: '7',
    creationTimestamp: '2026-01-02T00:00:00Z',
    finalizers: [CLUSTER_FINALIZER.name],
    ...fields,
  },
  spec: { region: 'eu-west-1', identityRef: ROLE, clusterName: 'prod', ...spec },
});

const roleIdentity = (labels: Record<string, string> = {}): IdentityObject => ({
  apiVersion: API_VERSION,
  kind: 'AWSClusterRoleIdentity',
  metadata: { name: ROLE.name, uid: 'uid-role', labels },
  spec: { roleARN: `arn:aws:iam::${ACCOUNT}:role/tenant-a`, allowedNamespaces: { list: ['tenant-a'] } },
});

/** A ledger of `owner` claiming clusterName prod in the account. */
const claimingLedger = (owner: AWSCluster): AWSClusterLedger => ({
  apiVersion: API_VERSION,
  kind: 'AWSClusterLedger',
  metadata: {
    name: owner.metadata.name ?? '',
    namespace: owner.metadata.namespace ?? '',
    ownerReferences: [
      {
        apiVersion: API_VERSION,
        kind: 'AWSCluster',
        name: owner.metadata.name ?? '',
        uid: owner.metadata.uid ?? '',
        controller: true,
      },
    ],
  },
  spec: { claims: [{ accountID: ACCOUNT, region: 'eu-west-1', clusterName: 'prod', since: '2026-01-01T00:00:00Z' }] },
});

const isCluster = (object: KeymasterObject): object is AWSCluster => object.kind === 'AWSCluster';

const tagged = (condition: TagOutcome['condition'], fields: Partial<TagOutcome> = {}): TagOutcome => ({
  condition,
  status: { resourcesDiscovered: 2, resourcesInSync: condition.status === 'True' ? 2 : 1 },
  events: [],
  transient: false,
  claimRefused: false,
  wrote: false,
  ...fields,
});
const IN_SYNC = tagged({ type: 'TagsInSync', status: 'True', reason: 'TagsInSync', message: '2 of 2 in sync' });
const outOfSync = (reason: TagsInSyncReason, transient = false) =>
  tagged({ type: 'TagsInSync', status: 'False', reason, message: `${reason} on 1 resource` }, { transient });

/** One AWSCluster reconcile's world of fakes; what a row changes before the reconcile. */
class ClusterWorld {
  readonly caches = new FakeCaches();
  readonly writer = new RecordingWriter();
  readonly events = new RecordingEvents();
  readonly resolver = new FakeResolver();
  readonly tagWork = new FakeTagWork<TagOutcome>();
  readonly clusterNames = new ClusterNames();
  readonly enqueued: string[] = [];
  readonly drifted = new Map<string, number>();
  syncTags: SyncTags = () => Promise.resolve(IN_SYNC);
  autoControllerIdentity = false;
  /** With --adopt-cluster-api: the Cluster API Clusters the adoption caches hold (their namespaces are the caches'). */
  adoptedClusters: ClusterAPICluster[] | undefined;
  #reconciler: AWSClusterReconciler | undefined;

  constructor() {
    this.caches.withIdentities(roleIdentity());
    this.resolver.answer = fakeSession([ROLE]);
  }

  /**
   * The reconcile of tenant-a/prod, run as the controller runs it: when it hands tag work to the
   * scheduler, the work runs and its end brings the cluster back. One reconciler per world, as one
   * per controller.
   */
  async reconcile(name = 'prod'): Promise<Result | undefined> {
    this.#reconciler ??= this.#createReconciler();
    const request = { namespace: 'tenant-a', name };
    const result = await this.#reconciler.reconcile(request, { reconcileId: 'r1' });
    if (this.tagWork.pending === 0) return result;
    await this.tagWork.finish();
    return this.#reconciler.reconcile(request, { reconcileId: 'r2' });
  }

  #createReconciler(): AWSClusterReconciler {
    const deps: AWSClusterReconcilerDeps = {
      caches: this.caches,
      ledgers: new FakeLedgers(),
      legacyEligible: () => false,
      writer: this.writer,
      events: this.events,
      resolver: this.resolver,
      syncTags: (work, log, options) => this.syncTags(work, log, options),
      clusterNames: this.clusterNames,
      tagWork: this.tagWork,
      sightings: new IdentitySightings(() => undefined),
      enqueue: (key) => this.enqueued.push(key),
      autoControllerIdentity: this.autoControllerIdentity,
      metrics: {
        setDrifted: (key, count) => this.drifted.set(key, count),
        countIgnoredBookkeeping: () => undefined,
        countLedgerFull: () => undefined,
      },
      now: () => NOW,
      logger: quietLogger(),
      tenantLabel: TENANT_LABEL,
      namespaceLimit: { plural: 'AWSClusters', limit: 1, flag: 'max-clusters-per-namespace' },
      adoption: this.adoptedClusters && {
        clusters: {
          get: (clusterName, namespace) =>
            this.adoptedClusters?.find(
              ({ metadata }) => metadata.name === clusterName && metadata.namespace === namespace,
            ),
        },
        namespaces: { get: (namespace) => this.caches.namespaces.get(namespace) },
      },
    };
    return new AWSClusterReconciler(deps);
  }
}

interface Row extends ReconcileRow {
  /** Sets the world up before the reconcile; by default tenant-a/prod is cached and resolves. */
  given?: (world: ClusterWorld) => void;
}

const refusedBy = (error: Error) => (world: ClusterWorld) => {
  world.caches.clusters.put(cluster());
  world.resolver.answer = error;
};
const withCluster = (object: AWSCluster) => (world: ClusterWorld) => world.caches.clusters.put(object);
const tagsEndIn = (outcome: TagOutcome) => (world: ClusterWorld) => {
  world.caches.clusters.put(cluster());
  world.syncTags = () => Promise.resolve(outcome);
};
/** tenant-a/prod uses tenant-a's identity, which resolves into an account no binding names. */
const inUnboundAccount = (world: ClusterWorld) => {
  world.caches.clusters.put(cluster());
  world.caches.withIdentities(roleIdentity({ [TENANT_LABEL]: 'tenant-a' }));
};

/** The conditions of a cluster whose identity resolve failed: tags are not checked, Ready says why. */
const refused = (allowed: string, retrieved: string, ready: string) => ({
  PrincipalUsageAllowed: allowed,
  PrincipalCredentialRetrieved: retrieved,
  TagsInSync: 'CredentialsUnavailable',
  Ready: ready,
});
const resolved = (tags: string, ready: string, name = 'ClusterNameUnique') => ({
  PrincipalUsageAllowed: 'PrincipalUsageAllowed',
  PrincipalCredentialRetrieved: 'PrincipalCredentialRetrieved',
  ClusterNameUnique: name,
  TagsInSync: tags,
  Ready: ready,
});

const ROWS: Row[] = [
  {
    title: 'a parked cluster is told its namespace is over the bound',
    given: (world) => world.caches.clusters.park(cluster()),
    reasons: { Ready: 'NamespaceLimitReached' },
  },
  {
    title: 'a cluster gone from the cache releases its credentials and writes nothing',
    writes: [],
  },
  {
    title: 'a deleted cluster lets its finalizer go and leaves tags on AWS',
    given: withCluster(cluster('prod', { deletionTimestamp: NOW.toISOString() })),
    writes: ['setFinalizers AWSCluster/prod'],
  },
  {
    title: 'a paused cluster is left as it is',
    given: withCluster(cluster('prod', { annotations: { [PAUSED_ANNOTATION]: '' } })),
    writes: [],
  },
  {
    title: 'a cluster without the finalizer gets it before anything else',
    given: withCluster(cluster('prod', { finalizers: [] })),
    writes: ['setFinalizers AWSCluster/prod'],
  },
  {
    title: 'a namespace out of STS budget waits for it, status as it is',
    given: refusedBy(new StsRateLimitedError('tenant-a', 1500)),
    writes: [],
    result: { requeueAfterMs: 1500 },
  },
  {
    title: 'the missing controller identity is created allowing no namespace (AutoControllerIdentityCreator)',
    given: (world) => {
      world.autoControllerIdentity = true;
      world.caches.clusters.put(cluster('prod', {}, { identityRef: undefined }));
      world.resolver.answer = new IdentityNotFoundError(
        { kind: 'AWSClusterControllerIdentity', name: 'default' },
        'AWSCluster tenant-a/prod',
      );
    },
    writes: ['createClusterScoped AWSClusterControllerIdentity/default'],
    result: { requeueAfterMs: 1000 },
  },
  ...identityFailures(ROLE, 'tenant-a').map(({ title, error, allowed, retrieved, ready, transient }): Row => ({
    title: `refused: ${title}`,
    given: refusedBy(error),
    reasons: refused(allowed, retrieved, ready),
    events: [`Warning ${ready}`],
    ...(transient ? { result: { requeue: true } } : {}),
  })),
  {
    title: "a tenant's identity in an account the platform bound to no tenant",
    given: inUnboundAccount,
    reasons: {
      PrincipalUsageAllowed: 'AccountNotBound',
      PrincipalCredentialRetrieved: 'PrincipalCredentialRetrieved',
      TagsInSync: 'AccountNotBound',
      Ready: 'AccountNotBound',
    },
    events: ['Warning AccountNotBound'],
  },
  {
    title: "a tenant's identity in an account bound to other tenants",
    given: (world) => {
      world.caches.clusters.put(cluster());
      world.caches.withIdentities(roleIdentity({ [TENANT_LABEL]: 'tenant-a' }));
      const binding: AWSAccountBinding = {
        apiVersion: API_VERSION,
        kind: 'AWSAccountBinding',
        metadata: { name: ACCOUNT },
        spec: { tenants: ['tenant-b'] },
      };
      world.caches.accountBindings.put(binding);
    },
    reasons: {
      PrincipalUsageAllowed: 'AccountOfAnotherTenant',
      PrincipalCredentialRetrieved: 'PrincipalCredentialRetrieved',
      TagsInSync: 'AccountOfAnotherTenant',
      Ready: 'AccountOfAnotherTenant',
    },
  },
  {
    title: 'tags in sync',
    given: withCluster(cluster()),
    reasons: resolved('TagsInSync', 'Ready'),
    events: [],
  },
  {
    title: 'a chain link being deleted still serves its clusters, and says so',
    given: (world) => {
      world.caches.clusters.put(cluster());
      world.resolver.answer = fakeSession([ROLE, SOURCE], { deleting: [SOURCE] });
    },
    reasons: { ...resolved('TagsInSync', 'Ready'), PrincipalUsageAllowed: 'IdentityDeleting' },
  },
  {
    title: 'paused tagging makes no AWS call and says so',
    given: (world) => {
      world.caches.clusters.put(cluster('prod', {}, { tagging: { paused: true } }));
      world.syncTags = createTagSync({});
    },
    reasons: resolved('TaggingPaused', 'TaggingPaused'),
  },
  {
    title: 'a dry run that would change tags',
    given: tagsEndIn(outOfSync(TagsInSyncReason.DryRun)),
    reasons: resolved('DryRun', 'DryRun'),
  },
  {
    title: 'tagging denied by IAM waits for a fix',
    given: tagsEndIn(outOfSync(TagsInSyncReason.AccessDenied)),
    reasons: resolved('AccessDenied', 'AccessDenied'),
  },
  {
    title: 'resources over the 50-tag limit',
    given: tagsEndIn(outOfSync(TagsInSyncReason.TagLimitExceeded)),
    reasons: resolved('TagLimitExceeded', 'TagLimitExceeded'),
  },
  {
    title: 'tag writes that failed are retried with backoff',
    given: tagsEndIn(outOfSync(TagsInSyncReason.TaggingFailed, true)),
    reasons: resolved('TaggingFailed', 'TaggingFailed'),
    result: { requeue: true },
  },
  {
    title: 'tags something else keeps changing are retried',
    given: tagsEndIn(outOfSync(TagsInSyncReason.TagDrift, true)),
    reasons: resolved('TagDrift', 'TagDrift'),
    result: { requeue: true },
  },
  {
    title: "another cluster's ledger claims the name: no AWS call at all",
    given: (world) => {
      const owner = cluster('owner', { creationTimestamp: '2026-01-01T00:00:00Z' });
      world.caches.clusters.put(cluster()).put(owner);
      world.caches.ledgerClaims.set(claimingLedger(owner));
      world.syncTags = () => Promise.reject(new Error('no tag work for a refused name'));
    },
    reasons: resolved('ClusterNameClaimed', 'ClusterNameClaimed', 'ClusterNameClaimed'),
    events: ['Warning ClusterNameClaimed', 'Warning ClusterNameClaimed'],
  },
  {
    title: 'an older cluster of the name not checked yet: this one waits',
    given: (world) => {
      world.caches.clusters.put(cluster()).put(cluster('older', { creationTimestamp: '2026-01-01T00:00:00Z' }));
    },
    reasons: resolved('WaitingForClusterNameClaim', 'WaitingForClusterNameClaim', 'WaitingForClusterNameClaim'),
  },
  {
    title: 'the oldest of clusters sharing a name owns it, and says they exist',
    given: (world) => {
      world.caches.clusters.put(cluster()).put(cluster('younger', { creationTimestamp: '2026-01-03T00:00:00Z' }));
      world.clusterNames.record({
        key: 'tenant-a/younger',
        clusterName: 'prod',
        accountId: ACCOUNT,
        regions: ['eu-west-1'],
      });
    },
    reasons: resolved('TagsInSync', 'Ready', 'DuplicateClusterName'),
  },
];

/** Reasons of the AWSCluster's condition types that only AWSCredentialsRequests get, or nothing writes. */
const NOT_AWSCLUSTER = [
  'InvalidRequest',
  'CredentialSetCapExceeded',
  'SpecTooLarge',
  'PassthroughRefused',
  'SessionPolicyWouldBroaden',
  'VendingNotEnabled',
  'VendingNamespaceNotAllowed',
  'SourceIdentityNotVendable',
  'ControllerNamespaceTokenNotVendable',
  // Ready is Unknown for an input not set yet; the reconcile sets all three before Ready.
  'Reconciling',
];
const AWSCLUSTER_REASONS = reasonsOf([
  'PrincipalUsageAllowed',
  'PrincipalCredentialRetrieved',
  'TagsInSync',
  'ClusterNameUnique',
  'Ready',
]).filter((reason) => !NOT_AWSCLUSTER.includes(reason));

describe('the AWSCluster reconcile, branch by branch', () => {
  for (const row of ROWS) {
    it(row.title, async () => {
      const world = new ClusterWorld();
      row.given?.(world);
      expectRow(row, world, await world.reconcile());
    });
  }

  it('has a row for every reason of every condition', () => {
    expect(reasonsWithoutRow(ROWS, AWSCLUSTER_REASONS)).to.deep.equal([]);
  });

  it("leaves the cached cluster as the informer holds it, its status included (paused tagging's last status too)", async () => {
    const world = new ClusterWorld();
    const cached = cluster('prod', {}, { tagging: { paused: true } });
    cached.status = { tagging: { resourcesDiscovered: 3, resourcesInSync: 2 } };
    world.caches.clusters.put(cached);
    world.syncTags = createTagSync({});
    const before = structuredClone(cached);
    await world.reconcile();
    expect(world.writer.status).to.have.nested.property('tagging.summary', '2/3');
    expect(cached).to.deep.equal(before);
  });

  it('releases what a cluster gone from the cache held', async () => {
    const world = new ClusterWorld();
    await world.reconcile();
    expect(world.resolver.released).to.deep.equal(['AWSCluster/tenant-a/prod']);
    expect(world.tagWork.cancelled).to.deep.equal(['tenant-a/prod']);
    expect(world.drifted.get('tenant-a/prod')).to.equal(0);
  });

  it('adds its finalizer, and lets only it go at deletion', async () => {
    const world = new ClusterWorld();
    world.caches.clusters.put(cluster('prod', { finalizers: ['other.example/keep'] }));
    await world.reconcile();
    const deleted = new ClusterWorld();
    deleted.caches.clusters.put(
      cluster('prod', {
        deletionTimestamp: NOW.toISOString(),
        finalizers: ['other.example/keep', CLUSTER_FINALIZER.name],
      }),
    );
    await deleted.reconcile();
    expect([world, deleted].map(({ writer }) => writer.writes[0]?.finalizers)).to.deep.equal([
      ['other.example/keep', CLUSTER_FINALIZER.name],
      ['other.example/keep'],
    ]);
  });

  it('asks for credentials as the cluster, for its region', async () => {
    const world = new ClusterWorld();
    world.caches.clusters.put(cluster());
    await world.reconcile();
    expect(world.resolver.asked[0]).to.deep.include({
      namespace: 'tenant-a',
      identityRef: ROLE,
      region: 'eu-west-1',
      holder: 'AWSCluster/tenant-a/prod',
    });
  });

  it('writes the account and chain of a refused account, and tags nothing', async () => {
    const world = new ClusterWorld();
    inUnboundAccount(world);
    await world.reconcile();
    expect(world.writer.status).to.deep.include({ accountID: ACCOUNT, identityChainSummary: 'tenant-a' });
    expect(world.tagWork.cancelled).to.deep.equal(['tenant-a/prod']);
  });

  it('claims no principal a refused cluster does not use now', async () => {
    const world = new ClusterWorld();
    const before = cluster();
    before.status = { accountID: ACCOUNT, principalARN: 'arn:aws:sts::111111111111:assumed-role/old/keymaster' };
    world.caches.clusters.put(before);
    world.resolver.answer = new IdentityNotFoundError(ROLE, 'AWSCluster tenant-a/prod');
    await world.reconcile();
    expect(world.writer.status).to.not.have.any.keys('accountID', 'principalARN');
    expect(world.resolver.released).to.deep.equal(['AWSCluster/tenant-a/prod']);
  });

  it('writes no status when a resync finds nothing new', async () => {
    const world = new ClusterWorld();
    world.caches.clusters.put(cluster());
    await world.reconcile();
    const written = world.writer.writes.at(-1)?.object;
    expect(written && isCluster(written)).to.equal(true);
    const again = new ClusterWorld();
    if (written && isCluster(written)) again.caches.clusters.put(written);
    await again.reconcile();
    expect(again.writer.made).to.deep.equal([]);
  });

  describe('tag policies by selection', () => {
    const tagPolicy = (name: string, spec: AWSTagPolicy['spec']): AWSTagPolicy => ({
      apiVersion: API_VERSION,
      kind: 'AWSTagPolicy',
      metadata: { name, uid: `uid-${name}`, generation: 1 },
      spec,
    });
    /** A world with the global policy, two label-selected ones, a namespace-selected one and one of another team. */
    const selectionWorld = (clusterLabels: Record<string, string>) => {
      const world = new ClusterWorld();
      world.caches.clusters.put(cluster('prod', { labels: clusterLabels }));
      world.caches.namespaces.put({ metadata: { name: 'tenant-a', labels: { team: 'payments' } } });
      for (const policy of [
        tagPolicy('default', { resourceTags: [] }),
        tagPolicy('prod', { clusterSelector: { matchLabels: { env: 'prod' } }, resourceTags: [] }),
        tagPolicy('pci', { clusterSelector: { matchLabels: { env: 'prod' } }, resourceTags: [], precedence: 10 }),
        tagPolicy('payments', { namespaceSelector: { matchLabels: { team: 'payments' } }, resourceTags: [] }),
        tagPolicy('web', { namespaceSelector: { matchLabels: { team: 'web' } }, resourceTags: [] }),
      ])
        world.caches.tagPolicies.put(policy);
      const seen: (string | undefined)[][] = [];
      world.syncTags = (work) => {
        seen.push([
          work.policies.policy?.metadata.name,
          ...(work.policies.selected ?? []).map(({ metadata }) => metadata.name),
        ]);
        return Promise.resolve(IN_SYNC);
      };
      return { world, seen };
    };

    it("hands tag work the global policy and those its labels and its namespace's select, the winner last", async () => {
      const { world, seen } = selectionWorld({ env: 'prod' });
      await world.reconcile();
      expect(seen).to.deep.equal([['default', 'prod', 'payments', 'pci']]);
    });

    it('plans a policy edit from what the last work left, kept apart from the outcome awaiting its reconcile', async () => {
      const world = new ClusterWorld();
      world.caches.clusters.put(cluster());
      const arn = `arn:aws:ec2:eu-west-1:${ACCOUNT}:instance/i-0123456789abcdef0`;
      const left = { resources: { [arn]: { team: 'payments' } }, regions: { [arn]: 'eu-west-1' } };
      const given: (DiscoveredResources | undefined)[] = [];
      world.syncTags = (work) => {
        given.push(work.known);
        return Promise.resolve(tagged(IN_SYNC.condition, { known: left }));
      };
      await world.reconcile();
      world.caches.tagPolicies.put(tagPolicy('default', { resourceTags: [{ key: 'team', value: 'payments' }] }));
      await world.reconcile();
      expect(given).to.deep.equal([undefined, left]);
      // The scheduler holds an outcome until its reconcile comes: at a cold start, thousands at once.
      const held = world.tagWork.results.map((result) => 'outcome' in result && 'known' in result.outcome);
      expect(held).to.deep.equal([false, false]);
    });

    it('plans a relabelled cluster again, with the policies that select it now', async () => {
      const { world, seen } = selectionWorld({ env: 'prod' });
      await world.reconcile();
      // A label edit moves no generation: only the policies that select the cluster name the new work.
      world.caches.clusters.put(cluster('prod', { labels: { env: 'dev' } }));
      await world.reconcile();
      expect(seen).to.deep.equal([
        ['default', 'prod', 'payments', 'pci'],
        ['default', 'payments'],
      ]);
    });
  });

  describe("CAPA's tags (the ClusterAPI layer)", () => {
    const owner = { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', name: 'prod', uid: 'uid-capi-prod' };
    const capaCluster = (ownerReferences: (typeof owner)[]) =>
      cluster(
        'prod',
        { ownerReferences },
        {
          clusterAPI: {
            clusterRef: { name: 'prod' },
            infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'AWSCluster', name: 'prod' },
            additionalTags: { env: 'x' },
          },
        },
      );
    const trustWorld = (ownerReferences: (typeof owner)[], labels: Record<string, string>) => {
      const world = new ClusterWorld();
      world.adoptedClusters = [
        {
          apiVersion: owner.apiVersion,
          kind: 'Cluster',
          metadata: { name: 'prod', namespace: 'tenant-a', uid: owner.uid },
          spec: {},
        },
      ];
      world.caches.clusters.put(capaCluster(ownerReferences));
      world.caches.namespaces.put({ metadata: { name: 'tenant-a', labels } });
      const seen: boolean[] = [];
      world.syncTags = (work) => {
        seen.push(work.policies.clusterAPICompanion);
        return Promise.resolve(IN_SYNC);
      };
      return { world, seen };
    };
    const cases = [
      { name: 'a companion: owned by its Cluster, namespace adopted', owners: [owner], adopted: true, read: true },
      { name: 'hand-made: no owner', owners: [], adopted: true, read: false },
      { name: 'a namespace not adopted', owners: [owner], adopted: false, read: false },
      {
        name: "an owner a tenant wrote: the Cluster's name, another uid",
        owners: [{ ...owner, uid: 'forged' }],
        adopted: true,
        read: false,
      },
    ];
    for (const { name, owners, adopted, read } of cases) {
      it(`${read ? 'reads' : 'ignores'} the layer of ${name}`, async () => {
        const { world, seen } = trustWorld(owners, adopted ? { [ADOPT_LABEL]: ADOPT_LABEL_VALUE } : {});
        await world.reconcile();
        expect(seen).to.deep.equal([read]);
      });
    }

    for (const [how, pause] of [
      ['spec.paused', { spec: { paused: true } }],
      ['the pause annotation', { metadata: { annotations: { [PAUSED_ANNOTATION]: '' } } }],
    ] as const)
      it(`leaves a companion alone as soon as its Cluster is paused (${how}), before the annotation reaches it`, async () => {
        const { world, seen } = trustWorld([owner], { [ADOPT_LABEL]: ADOPT_LABEL_VALUE });
        const [followed] = world.adoptedClusters!;
        world.adoptedClusters = [
          {
            ...followed!,
            ...pause,
            metadata: { ...followed!.metadata, ...('metadata' in pause ? pause.metadata : {}) },
          },
        ];
        await world.reconcile();
        expect(seen, 'tag work').to.deep.equal([]);
        expect(world.writer.writes, 'writes (no finalizer)').to.deep.equal([]);
      });

    it('reads no layer without --adopt-cluster-api (no adoption caches)', async () => {
      const { world, seen } = trustWorld([owner], { [ADOPT_LABEL]: ADOPT_LABEL_VALUE });
      world.adoptedClusters = undefined;
      await world.reconcile();
      expect(seen).to.deep.equal([false]);
    });

    it('tags again once ops label the namespace: no generation moved, the verdict did', async () => {
      const { world, seen } = trustWorld([owner], {});
      await world.reconcile();
      world.caches.namespaces.put({ metadata: { name: 'tenant-a', labels: { [ADOPT_LABEL]: ADOPT_LABEL_VALUE } } });
      await world.reconcile();
      expect(seen).to.deep.equal([false, true]);
    });
  });
});
