import { GetResourcesCommand, ResourceGroupsTaggingAPIClient } from '@aws-sdk/client-resource-groups-tagging-api';
import { expect } from 'chai';
import { IdentityResolver, refreshWindowMs, type IdentityError, type IdentitySession } from '../../src/index.js';
import { keys } from '../fixtures.js';
import { startHarness, type Harness } from './harness.js';
import {
  CONTROLLER_KEYS,
  EXTERNAL_ID,
  MANAGEMENT,
  TENANT_A,
  TENANT_A_KEYS,
  TENANT_A_ROTATED,
  TENANT_B,
} from './world.js';

const CONTROLLER_ARN = `arn:aws:iam::${MANAGEMENT}:user/keymaster-controller`;
const STATIC_ARN = `arn:aws:iam::${TENANT_A}:user/tenant-a-automation`;
const HUB_SESSION = `arn:aws:sts::${MANAGEMENT}:assumed-role/keymaster-hub/keymaster-keymaster-hub`;
const TENANT_B_SESSION = `arn:aws:sts::${TENANT_B}:assumed-role/tenant-b-admin/keymaster-tenant-b`;
const ROLE = 'AWSClusterRoleIdentity' as const;
const STATIC = 'AWSClusterStaticIdentity' as const;

/** The clusters of the platform: which namespace uses which identity. */
const USES = [
  { namespace: 'tenant-a', identityRef: { kind: STATIC, name: 'tenant-a' } },
  { namespace: 'tenant-a', identityRef: { kind: ROLE, name: 'tenant-a-tagger' } },
  { namespace: 'tenant-b', identityRef: { kind: ROLE, name: 'tenant-b' } },
  { namespace: 'tenant-b', identityRef: { kind: ROLE, name: 'tenant-b-deep' } },
  { namespace: 'tenant-c', identityRef: undefined },
];

const lastCall = (h: Harness) => h.aws.calls.summary().recent.at(-1)!;

async function tagApiCall(session: IdentitySession) {
  await session.client(ResourceGroupsTaggingAPIClient).send(new GetResourcesCommand({}));
}

async function refusal(
  h: Harness,
  request: Parameters<IdentityResolver['resolve']>[0],
): Promise<Error & { code: string }> {
  try {
    await h.resolver.resolve(request);
  } catch (error) {
    return error as Error & { code: string };
  }
  return expect.fail('expected the resolve to fail');
}

describe('IdentityResolver against the aws-emulator', function () {
  this.timeout(60_000);
  let h: Harness;

  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => {
    h.resolver.clear();
    await h.aws.stop();
  });

  it('1,000 concurrent resolves for 200 clusters over 5 identities: one AssumeRole per chain link, one GetCallerIdentity per credential set', async () => {
    const clusters = Array.from({ length: 200 }, (_, index) => ({
      ...USES[index % USES.length]!,
      region: 'us-west-2',
    }));
    const sessions = await Promise.all(
      Array.from({ length: 1000 }, (_, index) => h.resolver.resolve(clusters[index % 200]!)),
    );

    expect(h.calls('sts:AssumeRole'), 'hub, tenant-b, tenant-b-deep, tenant-a-tagger').to.equal(4);
    expect(h.callsBy(CONTROLLER_ARN, 'sts:AssumeRole'), 'hub').to.equal(1);
    expect(h.callsBy(HUB_SESSION, 'sts:AssumeRole'), 'tenant-b').to.equal(1);
    expect(h.callsBy(TENANT_B_SESSION, 'sts:AssumeRole'), 'tenant-b-deep').to.equal(1);
    expect(h.callsBy(STATIC_ARN, 'sts:AssumeRole'), 'tenant-a-tagger').to.equal(1);
    expect(h.calls('sts:GetCallerIdentity'), 'one per identity clusters use').to.equal(5);
    expect(new Set(sessions.map((session) => session.key)).size).to.equal(5);
    expect(
      sessions.find((session) => session.chain[0]?.name === 'tenant-b-deep')?.chain.map((link) => link.name),
    ).to.deep.equal(['tenant-b-deep', 'tenant-b', 'keymaster-hub', 'default']);
    expect(sessions.find((session) => session.chain[0]?.name === 'tenant-b')).to.include({
      accountId: TENANT_B,
      principalArn: TENANT_B_SESSION,
    });
  });

  it("every call for a cluster is signed by that cluster's own chain", async () => {
    for (const use of USES) {
      const session = await h.resolver.resolve({ ...use, region: 'us-west-2' });
      await tagApiCall(session);
      const call = lastCall(h);
      const credentials = await session.credentials();
      expect(call, JSON.stringify(use)).to.include({
        action: 'tag:GetResources',
        outcome: 'success',
        callerArn: session.principalArn,
        account: session.accountId,
      });
      expect(call.accessKeyId).to.equal(credentials.accessKeyId);
    }
    const tenantA = await h.resolver.resolve({ ...USES[0]!, region: 'us-west-2' });
    expect(tenantA).to.include({ accountId: TENANT_A, principalArn: STATIC_ARN });
    expect((await tenantA.credentials()).accessKeyId).to.equal(TENANT_A_KEYS.accessKeyId);
  });

  it('across 10 hours of emulator time: the fewest AssumeRoles the session lengths allow, and never an ExpiredToken', async () => {
    const stepMs = 120_000;
    const hours = 10;
    const startedAt = h.aws.clock.nowMs();
    for (let elapsed = 0; elapsed <= hours * 3_600_000; elapsed += stepMs) {
      const session = await h.resolver.resolve({ ...USES[3]!, region: 'us-west-2' });
      await tagApiCall(session);
      h.aws.clock.advance(stepMs / 1000);
    }
    expect(h.aws.clock.nowMs() - startedAt).to.be.greaterThan(hours * 3_600_000);

    // Each link renews at the first use inside its renewal window; a source is used only when the link above it renews.
    const renewals = (uses: number[]) => {
      const at: number[] = [];
      let renewAt = -Infinity;
      for (const time of uses) {
        if (time < renewAt) continue;
        at.push(time);
        renewAt = time + 3_600_000 - refreshWindowMs(3_600_000);
      }
      return at;
    };
    const steps = Array.from({ length: (hours * 3_600_000) / stepMs + 1 }, (_, index) => index * stepMs);
    const deep = renewals(steps);
    const tenantB = renewals(deep);
    const hub = renewals(tenantB);
    expect(deep.length, 'sessions of 3600 s over 10 h').to.be.within(10, 12);
    const summary = h.aws.calls.summary();
    const assumedBy = (prefix: string) =>
      Object.entries(summary.byCaller)
        .filter(([caller]) => caller.startsWith(prefix))
        .reduce((sum, [, actions]) => sum + (actions['sts:AssumeRole'] ?? 0), 0);
    expect(assumedBy(`arn:aws:sts::${TENANT_B}:assumed-role/tenant-b-admin/`), 'tenant-b-deep').to.equal(deep.length);
    expect(assumedBy(`arn:aws:sts::${MANAGEMENT}:assumed-role/keymaster-hub/`), 'tenant-b').to.equal(tenantB.length);
    expect(assumedBy(CONTROLLER_ARN), 'keymaster-hub').to.equal(hub.length);
    expect(summary.errors, 'no call failed, ExpiredToken or other').to.deep.equal({});
    expect(summary.byAction['sts:GetCallerIdentity']).to.equal(1);
  });

  it('AWS refusing expired credentials makes one renewal, however many calls fail together', async () => {
    // A resolver on the wall clock does not see the emulator's clock move: its sessions expire under it.
    const resolver = new IdentityResolver({
      store: h.platform,
      controllerNamespace: 'keymaster-system',
      controllerCredentials: () => Promise.resolve(CONTROLLER_KEYS),
      aws: { endpoint: h.aws.url },
    });
    const session = await resolver.resolve({ ...USES[2]!, region: 'us-west-2' });
    const before = h.calls('sts:AssumeRole');
    h.aws.clock.advance(7200);
    await Promise.all(Array.from({ length: 20 }, () => tagApiCall(session)));
    const summary = h.aws.calls.summary();
    // The tagging API (JSON protocol) names it ExpiredTokenException; query APIs say ExpiredToken.
    expect(summary.errors['tag:GetResources']).to.have.property('ExpiredTokenException').that.is.at.least(1);
    // Renewing tenant-b meets its source's expired session too: that AssumeRole fails once, the hub renews, the retry succeeds.
    expect(summary.errors['sts:AssumeRole']).to.deep.equal({ ExpiredToken: 1 });
    expect(h.calls('sts:AssumeRole') - before - 1, 'tenant-b renewed once, and its source once').to.equal(2);
    resolver.clear();
  });

  it('Secret rotation: the new keys on the next resolve, and what was built on the old ones evicted', async () => {
    const first = await h.resolver.resolve({ ...USES[1]!, region: 'us-west-2' }); // tenant-a-tagger, sourced from the static keys
    const setsBefore = h.resolver.size.credentialSets;
    h.platform.secrets.set(
      'keymaster-system/tenant-a-keys',
      keys(TENANT_A_ROTATED.accessKeyId, TENANT_A_ROTATED.secretAccessKey),
    );
    const assumedBefore = h.calls('sts:AssumeRole');
    const second = await h.resolver.resolve({ ...USES[1]!, region: 'us-west-2' });
    expect(second.key).not.to.equal(first.key);
    expect(h.calls('sts:AssumeRole') - assumedBefore, 'the role is assumed again, with the new keys').to.equal(1);
    expect(lastCall(h)).to.include({
      action: 'sts:GetCallerIdentity',
      accessKeyId: (await second.credentials()).accessKeyId,
    });
    const assume = h.aws.calls
      .summary()
      .recent.find((call) => call.action === 'sts:AssumeRole' && call.accessKeyId === TENANT_A_ROTATED.accessKeyId);
    expect(assume, 'AssumeRole signed with the rotated key').to.exist;
    expect(h.resolver.size.credentialSets, 'old static and role sets evicted').to.equal(setsBefore);
  });

  it('a role spec edit assumes that role again; a source edit renews everything above it; a label edit calls nothing', async () => {
    await h.resolver.resolve({ ...USES[3]!, region: 'us-west-2' });
    const count = () => h.aws.calls.summary().total;

    let before = count();
    h.platform.edit(ROLE, 'keymaster-hub', (hub) => (hub.metadata.labels = { team: 'platform' }));
    h.platform.edit(
      ROLE,
      'tenant-b',
      (role) => ((role.spec as { allowedNamespaces?: object }).allowedNamespaces = { list: ['tenant-b', 'tenant-x'] }),
    );
    await h.resolver.resolve({ ...USES[3]!, region: 'us-west-2' });
    expect(count() - before, 'no STS call for metadata or allowedNamespaces edits').to.equal(0);

    before = h.calls('sts:AssumeRole');
    h.platform.edit(ROLE, 'tenant-b-deep', (role) => ((role.spec as { sessionName?: string }).sessionName = 'renamed'));
    await h.resolver.resolve({ ...USES[3]!, region: 'us-west-2' });
    expect(h.calls('sts:AssumeRole') - before, 'only tenant-b-deep').to.equal(1);

    before = h.calls('sts:AssumeRole');
    h.platform.edit(
      ROLE,
      'keymaster-hub',
      (hub) => ((hub.spec as { durationSeconds?: number }).durationSeconds = 1800),
    );
    await h.resolver.resolve({ ...USES[3]!, region: 'us-west-2' });
    expect(h.calls('sts:AssumeRole') - before, 'hub, tenant-b and tenant-b-deep').to.equal(3);
  });

  it('revoking a namespace takes effect on the very next resolve, while credentials are cached', async () => {
    await h.resolver.resolve({ ...USES[3]!, region: 'us-west-2' });
    const before = h.aws.calls.summary().total;
    h.platform.edit(
      ROLE,
      'keymaster-hub',
      (hub) => ((hub.spec as { allowedNamespaces?: object }).allowedNamespaces = { list: ['tenant-x'] }),
    );
    const error = await refusal(h, { ...USES[3]!, region: 'us-west-2' });
    expect(error).to.include({ code: 'ERR_KEYMASTER_NAMESPACE_NOT_ALLOWED', depth: 2 });
    expect(h.aws.calls.summary().total - before).to.equal(0);
  });

  it('an identity being deleted: its user keeps its session, told which link; a newer cluster gets no credentials and AWS no call', async () => {
    h.platform.edit(ROLE, 'keymaster-hub', (hub) => (hub.metadata.deletionTimestamp = '2026-03-01T12:00:00Z'));
    const user = { key: 'tenant-b/old', createdAt: '2026-02-01T00:00:00Z' };
    const session = await h.resolver.resolve({ ...USES[2]!, region: 'us-west-2', cluster: user });
    expect(session.deleting).to.deep.equal([{ kind: ROLE, name: 'keymaster-hub' }]);
    await tagApiCall(session);
    const before = h.aws.calls.summary().total;
    const newcomer = { key: 'tenant-b/new', createdAt: '2026-03-01T12:00:01Z' };
    const error = await refusal(h, { ...USES[2]!, region: 'us-west-2', cluster: newcomer });
    expect(error).to.include({ code: 'ERR_KEYMASTER_IDENTITY_DELETING', depth: 1 });
    expect(h.aws.calls.summary().total - before).to.equal(0);
  });

  it('forgetting a deleted identity evicts every credential set built on it', async () => {
    await Promise.all(USES.map((use) => h.resolver.resolve({ ...use, region: 'us-west-2' })));
    const sets = h.resolver.size.credentialSets;
    h.resolver.forgetIdentity(ROLE, 'keymaster-hub');
    expect(h.resolver.size.credentialSets, 'hub, tenant-b and tenant-b-deep').to.equal(sets - 3);
    h.resolver.forgetSecret('tenant-a-keys');
    expect(h.resolver.size.credentialSets, 'the static set and the role on top of it').to.equal(sets - 5);
    const before = h.calls('sts:AssumeRole');
    await h.resolver.resolve({ ...USES[2]!, region: 'us-west-2' });
    expect(h.calls('sts:AssumeRole') - before).to.equal(2);
  });

  it('caches clients per credential set, region and service', async () => {
    const session = await h.resolver.resolve({ ...USES[2]!, region: 'us-west-2' });
    const again = await h.resolver.resolve({ ...USES[2]!, region: 'us-west-2' });
    expect(again.client(ResourceGroupsTaggingAPIClient)).to.equal(session.client(ResourceGroupsTaggingAPIClient));
    expect(session.client(ResourceGroupsTaggingAPIClient, 'eu-west-1')).not.to.equal(
      session.client(ResourceGroupsTaggingAPIClient),
    );
    expect(await session.client(ResourceGroupsTaggingAPIClient, 'eu-west-1').config.region()).to.equal('eu-west-1');
  });

  it('tells its observer about every STS call, cache lookup and AWS call', async () => {
    const seen = { sts: [] as string[], lookups: [] as boolean[], aws: [] as string[] };
    const resolver = new IdentityResolver({
      store: h.platform,
      controllerNamespace: 'keymaster-system',
      controllerCredentials: () => Promise.resolve(CONTROLLER_KEYS),
      aws: { endpoint: h.aws.url },
      observer: {
        stsCall: (action, outcome) => seen.sts.push(`${action}:${outcome}`),
        cacheLookup: (hit) => seen.lookups.push(hit),
        awsCall: (service, operation, code) => seen.aws.push(`${service}:${operation}:${code}`),
      },
    });
    await tagApiCall(await resolver.resolve({ ...USES[2]!, region: 'us-west-2' }));
    await resolver.resolve({ ...USES[2]!, region: 'us-west-2' });
    expect(seen.sts).to.deep.equal(['AssumeRole:success', 'AssumeRole:success', 'GetCallerIdentity:success']);
    expect(seen.lookups).to.deep.equal([false, false, false, true, true, true]);
    expect(seen.aws).to.deep.equal([
      'sts:AssumeRole:OK',
      'sts:AssumeRole:OK',
      'sts:GetCallerIdentity:OK',
      'resourcegroupstaggingapi:GetResources:OK',
    ]);
    seen.aws.length = 0;
    h.platform.edit(
      ROLE,
      'tenant-b',
      (role) => ((role.spec as { externalID?: string }).externalID = `${EXTERNAL_ID}-wrong`),
    );
    await resolver.resolve({ ...USES[2]!, region: 'us-west-2' }).catch(() => undefined);
    expect(seen.aws, 'the GetCallerIdentity that never left for want of credentials is not counted').to.deep.equal([
      'sts:AssumeRole:AccessDenied',
    ]);
    resolver.clear();
  });

  describe('refusals, each typed and making no STS call it should not', () => {
    it("a wrong externalID: AssumeRole denied with AWS's code, no GetCallerIdentity", async () => {
      h.platform.edit(
        ROLE,
        'tenant-b',
        (role) => ((role.spec as { externalID?: string }).externalID = `${EXTERNAL_ID}-wrong`),
      );
      const error = await refusal(h, { ...USES[2]!, region: 'us-west-2' });
      expect(error).to.include({ code: 'ERR_KEYMASTER_ASSUME_ROLE_FAILED', awsCode: 'AccessDenied' });
      expect(error.message).to.match(/^sts:AssumeRole for AWSClusterRoleIdentity\/tenant-b failed: AccessDenied/);
      expect(h.aws.calls.summary().errors).to.deep.equal({ 'sts:AssumeRole': { AccessDenied: 1 } });
      expect(h.calls('sts:GetCallerIdentity')).to.equal(0);
      expect(
        (error as unknown as IdentityError).chain.map(({ kind, name }) => `${kind}/${name}`),
        'the whole chain was checked',
      ).to.deep.equal([
        'AWSClusterRoleIdentity/tenant-b',
        'AWSClusterRoleIdentity/keymaster-hub',
        'AWSClusterControllerIdentity/default',
      ]);
    });

    it('an identity AWS refuses costs one AssumeRole per backoff step, however many clusters resolve it; a fix in AWS is seen after the step', async () => {
      // The resolver's clock moves only when told: the step is 1 s.
      let now = h.aws.clock.nowMs();
      const resolver = new IdentityResolver({
        store: h.platform,
        controllerNamespace: 'keymaster-system',
        controllerCredentials: () => Promise.resolve(CONTROLLER_KEYS),
        aws: { endpoint: h.aws.url },
        clock: () => now,
      });
      const tagger = { ...USES[1]!, region: 'us-west-2' };
      const refused = () =>
        resolver.resolve(tagger).then(
          () => expect.fail('resolved'),
          (error: unknown) => error,
        );
      const denied = h.aws.faults.add({ action: 'sts:AssumeRole', errorCode: 'AccessDenied' });
      for (let cluster = 0; cluster < 20; cluster += 1)
        expect(await refused()).to.include({ awsCode: 'AccessDenied', transient: true });
      expect(h.calls('sts:AssumeRole'), 'one call for 20 clusters').to.equal(1);

      // The trust policy is fixed in AWS: nothing changes in Kubernetes, the next step asks again.
      h.aws.faults.remove(denied.id);
      now += 999;
      await refused();
      expect(h.calls('sts:AssumeRole'), 'not before the step').to.equal(1);
      now += 1;
      await resolver.resolve(tagger);
      expect(h.calls('sts:AssumeRole')).to.equal(2);
      resolver.clear();
    });

    const noCalls: [
      string,
      (harness: Harness) => void,
      { namespace: string; kind: typeof ROLE | typeof STATIC; name: string },
      string,
    ][] = [
      [
        "namespace refused by the cluster's own identity",
        () => undefined,
        { namespace: 'tenant-c', kind: ROLE, name: 'tenant-b' },
        'ERR_KEYMASTER_NAMESPACE_NOT_ALLOWED',
      ],
      [
        'namespace refused by a deeper link',
        (harness) => harness.platform.namespaces.set('tenant-b', { name: 'tenant-b', labels: {} }),
        { namespace: 'tenant-b', kind: ROLE, name: 'tenant-b' },
        'ERR_KEYMASTER_NAMESPACE_NOT_ALLOWED',
      ],
      [
        'a missing Secret',
        (harness) => harness.platform.secrets.clear(),
        { namespace: 'tenant-a', kind: STATIC, name: 'tenant-a' },
        'ERR_KEYMASTER_SECRET_NOT_FOUND',
      ],
      [
        'a malformed Secret',
        (harness) =>
          harness.platform.secrets.set('keymaster-system/tenant-a-keys', { data: { AccessKeyID: 'QUtJQQ==' } }),
        { namespace: 'tenant-a', kind: STATIC, name: 'tenant-a' },
        'ERR_KEYMASTER_SECRET_INVALID',
      ],
      [
        'a cycle',
        (harness) =>
          harness.platform.edit(
            ROLE,
            'keymaster-hub',
            (hub) =>
              ((hub.spec as { sourceIdentityRef?: unknown }).sourceIdentityRef = { kind: ROLE, name: 'tenant-b-deep' }),
          ),
        { namespace: 'tenant-b', kind: ROLE, name: 'tenant-b-deep' },
        'ERR_KEYMASTER_IDENTITY_CYCLE',
      ],
      [
        'a chain too deep',
        (harness) => {
          harness.resolver.clear();
          Object.assign(harness, {
            resolver: new IdentityResolver({
              store: harness.platform,
              controllerNamespace: 'keymaster-system',
              maxChainLinks: 3,
              aws: { endpoint: harness.aws.url },
            }),
          });
        },
        { namespace: 'tenant-b', kind: ROLE, name: 'tenant-b-deep' },
        'ERR_KEYMASTER_IDENTITY_CHAIN_TOO_DEEP',
      ],
      [
        'a chained role asking for 7200 s',
        (harness) =>
          harness.platform.edit(
            ROLE,
            'tenant-b',
            (role) => ((role.spec as { durationSeconds?: number }).durationSeconds = 7200),
          ),
        { namespace: 'tenant-b', kind: ROLE, name: 'tenant-b' },
        'ERR_KEYMASTER_IDENTITY_INVALID',
      ],
    ];
    for (const [description, arrange, { namespace, kind, name }, code] of noCalls) {
      it(`${description}: ${code}, and no AWS call at all`, async () => {
        arrange(h);
        const error = await refusal(h, { namespace, identityRef: { kind, name }, region: 'us-west-2' });
        expect(error.code).to.equal(code);
        expect(h.aws.calls.summary().total).to.equal(0);
      });
    }
  });
});
