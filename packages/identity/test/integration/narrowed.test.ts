import {
  GetResourcesCommand,
  ResourceGroupsTaggingAPIClient,
  TagResourcesCommand,
} from '@aws-sdk/client-resource-groups-tagging-api';
import type { AWSClusterRoleIdentitySpec, AWSCredentialsRequestSpec } from '@keymaster/api';
import type { AwsCredentialIdentity } from '@smithy/types';
import { expect } from 'chai';
import type { IdentityResolver } from '../../src/index.js';
import {
  AwsCredentialError,
  NamespaceNotAllowedError,
  PassthroughRefusedError,
  SourceIdentityNotVendableError,
  VendingNamespaceNotAllowedError,
  VendingNotEnabledError,
  type NarrowedRequest,
  type Requester,
} from '../../src/index.js';
import { role } from '../fixtures.js';
import { resolverOn, startHarness, tenantBWorkloads, type Harness } from './harness.js';
import { TENANT_B } from './world.js';

const HUB_SESSION = 'arn:aws:sts::111111111111:assumed-role/keymaster-hub/keymaster-keymaster-hub';
const ROLE_KIND = 'AWSClusterRoleIdentity' as const;
const WORKLOADS = { kind: ROLE_KIND, name: 'tenant-b-workloads' };

const readTags = (fields: Partial<AWSCredentialsRequestSpec> = {}): NarrowedRequest => ({
  namespace: 'tenant-b',
  spec: {
    identityRef: WORKLOADS,
    statements: [{ effect: 'Allow', actions: ['tag:GetResources'], resources: ['*'] }],
    secretRef: { name: 'aws' },
    ...fields,
  },
});

const tagging = (h: Harness, credentials: AwsCredentialIdentity) =>
  new ResourceGroupsTaggingAPIClient({ region: 'eu-west-1', endpoint: h.aws.url, credentials });

async function refusal(promise: Promise<unknown>): Promise<Error & { code?: string; name: string }> {
  try {
    await promise;
  } catch (error) {
    return error as Error & { name: string };
  }
  return expect.fail('expected a refusal');
}

describe('IdentityResolver.resolveNarrowed against the aws-emulator', function () {
  this.timeout(60_000);
  let h: Harness;
  let resolver: IdentityResolver;
  let sts: { action: string; requester: Requester }[];

  beforeEach(async () => {
    h = await startHarness();
    h.platform.put(tenantBWorkloads());
    sts = [];
    resolver = resolverOn(h.aws, h.platform, {
      observer: { stsCall: (action, _outcome, _code, requester) => sts.push({ action, requester }) },
    });
  });
  afterEach(async () => {
    resolver.clear();
    await h.aws.stop();
  });

  it('vends credentials that do what the statements allow and nothing else the role allows', async () => {
    const session = await resolver.resolveNarrowed(readTags());
    expect(session.accountId).to.equal(TENANT_B);
    expect(session.principalArn).to.match(/assumed-role\/tenant-b-admin\//);
    expect(session.chain.map(({ name }) => name)).to.deep.equal(['tenant-b-workloads', 'keymaster-hub', 'default']);
    const client = tagging(h, session.credentials);
    await client.send(new GetResourcesCommand({}));
    // The role allows tag:*; the session policy does not allow TagResources.
    const denied = await refusal(
      client.send(
        new TagResourcesCommand({
          ResourceARNList: [`arn:aws:ec2:eu-west-1:${TENANT_B}:instance/i-1`],
          Tags: { a: 'b' },
        }),
      ),
    );
    expect(denied.name).to.equal('AccessDeniedException');
    client.destroy();
  });

  it('shares one session between requests of a namespace that ask alike, and counts STS calls for AWSCredentialsRequest', async () => {
    const sessions = await Promise.all(Array.from({ length: 20 }, () => resolver.resolveNarrowed(readTags())));
    expect(new Set(sessions.map(({ key }) => key)).size).to.equal(1);
    expect(h.callsBy(HUB_SESSION, 'sts:AssumeRole'), 'tenant-b-admin assumed once').to.equal(1);

    const other = await resolver.resolveNarrowed(readTags({ durationSeconds: 900 }));
    expect(other.key).not.to.equal(sessions[0]!.key);
    expect(h.callsBy(HUB_SESSION, 'sts:AssumeRole'), 'another duration is another session').to.equal(2);
    expect(sts.filter(({ action }) => action === 'AssumeRole').map(({ requester }) => requester)).to.deep.equal([
      'AWSCredentialsRequest',
      'AWSCredentialsRequest',
      'AWSCredentialsRequest',
    ]);
  });

  it('renews once, for every request sharing the session, when renewAtPercent of the lifetime has passed', async () => {
    const first = await resolver.resolveNarrowed(readTags());
    expect(first.renewAt.getTime() - first.obtainedAt.getTime()).to.be.closeTo(1_800_000, 5_000);
    h.aws.clock.advance(1700);
    expect((await resolver.resolveNarrowed(readTags())).credentials.accessKeyId, 'before half of 3600 s').to.equal(
      first.credentials.accessKeyId,
    );
    h.aws.clock.advance(100);
    const renewed = await Promise.all(Array.from({ length: 10 }, () => resolver.resolveNarrowed(readTags())));
    expect(new Set(renewed.map(({ credentials }) => credentials.accessKeyId)).size).to.equal(1);
    expect(renewed[0]!.credentials.accessKeyId).not.to.equal(first.credentials.accessKeyId);
    expect(renewed[0]!.obtainedAt.getTime()).to.be.closeTo(h.aws.clock.nowMs(), 5_000);
    expect(h.callsBy(HUB_SESSION, 'sts:AssumeRole')).to.equal(2);
    // A request that renews later (75 %) takes the fresh set as it is.
    await resolver.resolveNarrowed(readTags({ renewAtPercent: 75 }));
    expect(h.callsBy(HUB_SESSION, 'sts:AssumeRole')).to.equal(2);
  });

  it('checks allowedNamespaces on every link', async () => {
    const error = await refusal(resolver.resolveNarrowed({ ...readTags(), namespace: 'tenant-c' }));
    expect(error).to.be.instanceOf(NamespaceNotAllowedError);
    h.platform.edit('AWSClusterRoleIdentity', 'tenant-b-workloads', (identity) => {
      (identity.spec as { allowedNamespaces?: object }).allowedNamespaces = { list: ['tenant-b', 'tenant-c'] };
    });
    const source = await refusal(resolver.resolveNarrowed({ ...readTags(), namespace: 'tenant-c' }));
    expect(source).to.be.instanceOf(NamespaceNotAllowedError);
    expect((source as NamespaceNotAllowedError).reason).to.equal('SourcePrincipalUsageUnauthorized');
    expect(h.calls('sts:AssumeRole')).to.equal(0);
  });

  it("vends only what opted in, never the hub, and stops vending a role made another's source, with no STS call for a refusal", async () => {
    // The hub allows tenant-b (every link must), and even says it vends: it is the source of tenant roles.
    h.platform.edit('AWSClusterRoleIdentity', 'keymaster-hub', (identity) => {
      (identity.spec as AWSClusterRoleIdentitySpec).credentialVending = { allowedNamespaces: {} };
    });
    const hub = await refusal(
      resolver.resolveNarrowed(readTags({ identityRef: { kind: ROLE_KIND, name: 'keymaster-hub' } })),
    );
    expect(hub).to.be.instanceOf(SourceIdentityNotVendableError);
    expect(hub.message).to.contain(
      'AWSClusterRoleIdentity/keymaster-hub is the sourceIdentityRef of 2 other identities',
    );
    // A tenant role without credentialVending: clusters may use it, workloads may not.
    const deep = await refusal(
      resolver.resolveNarrowed(readTags({ identityRef: { kind: ROLE_KIND, name: 'tenant-b-deep' } })),
    );
    expect(deep).to.be.instanceOf(VendingNotEnabledError);
    h.platform.edit('AWSClusterRoleIdentity', 'tenant-b-workloads', (identity) => {
      (identity.spec as AWSClusterRoleIdentitySpec).credentialVending = { allowedNamespaces: { list: ['tenant-c'] } };
    });
    expect(await refusal(resolver.resolveNarrowed(readTags()))).to.be.instanceOf(VendingNamespaceNotAllowedError);
    expect(h.calls('sts:AssumeRole'), 'AssumeRole for refused requests').to.equal(0);

    h.platform.edit('AWSClusterRoleIdentity', 'tenant-b-workloads', (identity) => {
      (identity.spec as AWSClusterRoleIdentitySpec).credentialVending = { allowedNamespaces: { list: ['tenant-b'] } };
    });
    await resolver.resolveNarrowed(readTags());
    const served = h.calls('sts:AssumeRole');
    // Ops build another role on it: from the next resolve on, its session is a hub's, never vended.
    h.platform.put(
      role('tenant-b-onwards', { sourceIdentityRef: WORKLOADS, allowedNamespaces: { list: ['tenant-b'] } }),
    );
    expect(await refusal(resolver.resolveNarrowed(readTags()))).to.be.instanceOf(SourceIdentityNotVendableError);
    expect(h.calls('sts:AssumeRole')).to.equal(served);
  });

  it('refuses static keys (passthrough) and a chained duration over one hour before any STS call', async () => {
    const elsewhere = await refusal(
      resolver.resolveNarrowed(readTags({ identityRef: { kind: 'AWSClusterStaticIdentity', name: 'tenant-a' } })),
    );
    expect(elsewhere, "tenant-a's keys do not allow tenant-b").to.be.instanceOf(NamespaceNotAllowedError);
    const own = await refusal(
      resolver.resolveNarrowed({
        namespace: 'tenant-a',
        spec: { ...readTags().spec, identityRef: { kind: 'AWSClusterStaticIdentity', name: 'tenant-a' } },
      }),
    );
    expect(own).to.be.instanceOf(PassthroughRefusedError);
    const long = await refusal(resolver.resolveNarrowed(readTags({ durationSeconds: 7200 })));
    expect(long.message).to.contain('spec.durationSeconds');
    expect(h.calls('sts:AssumeRole')).to.equal(0);

    // tenant-a-tagger is assumed with long-lived keys: not chained, 7200 s is AWS's to judge (its maximum is 7200).
    h.platform.edit('AWSClusterRoleIdentity', 'tenant-a-tagger', (identity) => {
      (identity.spec as AWSClusterRoleIdentitySpec).credentialVending = { allowedNamespaces: {} };
    });
    const unchained = await resolver.resolveNarrowed({
      namespace: 'tenant-a',
      spec: {
        ...readTags().spec,
        identityRef: { kind: 'AWSClusterRoleIdentity', name: 'tenant-a-tagger' },
        durationSeconds: 7200,
      },
    });
    const { credentials, obtainedAt } = unchained;
    expect(credentials.expiration!.getTime() - obtainedAt.getTime()).to.be.closeTo(7_200_000, 5_000);
  });

  it('asks AWS once for a session policy it refuses as too large once packed: later resolves get the refusal, with what helps', async () => {
    // Far under the 2048 characters of the plaintext limit, over AWS's packed budget.
    const actions = Array.from({ length: 30 }, (_, i) => `ec2:DescribeThing${i}`);
    const tooLarge = readTags({ statements: [{ effect: 'Allow', actions, resources: ['*'] }] });
    const refusals = [];
    for (let i = 0; i < 3; i += 1) refusals.push(await refusal(resolver.resolveNarrowed(tooLarge)));
    for (const error of refusals) {
      expect(error).to.be.instanceOf(AwsCredentialError).with.property('inputRefused', true);
      expect(error.message).to.contain('PackedPolicyTooLarge');
      expect((error as AwsCredentialError).hint).to.contain('managed policy listed in policyARNs');
    }
    expect(h.callsBy(HUB_SESSION, 'sts:AssumeRole'), 'tenant-b-admin asked once').to.equal(1);

    // Another policy is another session: asked, and served.
    await resolver.resolveNarrowed(readTags());
    expect(h.callsBy(HUB_SESSION, 'sts:AssumeRole')).to.equal(2);
  });
});
