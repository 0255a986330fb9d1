import { PassThrough } from 'node:stream';
import { API_VERSION, GROUP, VERSION, type AWSClusterRoleIdentity, type AWSCredentialsRequest } from '@keymaster/api';
import type { World } from '@keymaster/aws-emulator';
import { expect } from 'chai';
import { createControllerLogger } from '../../src/logging.js';
import { CONTROLLER_KEYS, TEAM_A, condition, eventually, startPlatform, type Platform } from './harness.js';

const CONTROLLER_USER = 'arn:aws:iam::111111111111:user/keymaster-controller';
const ROLE_ARN = 'arn:aws:iam::111111111111:role/tenant';
/** The externalID tenant's role requires, and the next one during a rotation (the trust policy accepts both). */
const EXTERNAL_ID = 'e2c7b1d0-first-tenant-id';
const ROTATED = 'f9a3c4e5-second-tenant-id';
const SECRET = 'tenant-external-id';
const ROLE = { kind: 'AWSClusterRoleIdentity', name: 'tenant' };

const world = (): World => ({
  accounts: [
    {
      id: '111111111111',
      users: [{ name: 'keymaster-controller', accessKeys: [CONTROLLER_KEYS], allow: ['sts:AssumeRole'] }],
      roles: [
        {
          name: 'tenant',
          trust: [EXTERNAL_ID, ROTATED].map((externalId) => ({ principal: CONTROLLER_USER, externalId })),
          allow: ['tag:*', 'ec2:CreateTags', 'ec2:DescribeTags', 'sts:GetCallerIdentity'],
        },
      ],
      resources: [{ arn: 'arn:aws:ec2:us-west-2:111111111111:instance/i-0000000000000000a', tags: {} }],
    },
  ],
});

const secret = (data: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: SECRET, namespace: 'keymaster-system' },
  stringData: data,
});
const role = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: API_VERSION,
  kind: ROLE.kind,
  metadata: { name },
  spec: { roleARN: ROLE_ARN, allowedNamespaces: { list: ['team-a'] }, ...spec },
});

const objects = [
  ...TEAM_A,
  secret({ externalID: EXTERNAL_ID }),
  role(ROLE.name, {
    externalIDSecretRef: { name: SECRET, key: 'externalID' },
    credentialVending: { allowedNamespaces: { list: ['team-a'] } },
  }),
  // An identity of an older release: its externalID in the spec, still sent, and flagged.
  role('legacy', { externalID: EXTERNAL_ID }),
  {
    apiVersion: API_VERSION,
    kind: 'AWSCluster',
    metadata: { name: 'prod', namespace: 'team-a' },
    spec: { region: 'us-west-2', identityRef: ROLE },
  },
  // Keeps the controller identity in use whatever tenant's chain reaches: its finalizer does not move.
  {
    apiVersion: API_VERSION,
    kind: 'AWSCluster',
    metadata: { name: 'on-default', namespace: 'team-a' },
    spec: { region: 'us-west-2', tagging: { paused: true } },
  },
  {
    apiVersion: API_VERSION,
    kind: 'AWSCredentialsRequest',
    metadata: { name: 'reports', namespace: 'team-a' },
    spec: {
      identityRef: ROLE,
      statements: [{ effect: 'Allow', actions: ['tag:GetResources'], resources: ['*'] }],
      durationSeconds: 3600,
      secretRef: { name: 'reports-aws' },
    },
  },
];

describe("a role identity's externalID in a Secret, through the controller (both emulators)", function () {
  this.timeout(120_000);
  let platform: Platform;
  const logs: string[] = [];

  before(async () => {
    const stream = new PassThrough();
    stream.on('data', (chunk: Buffer) => logs.push(chunk.toString()));
    // No periodic resync: what follows a Secret's change follows its event.
    platform = await startPlatform(objects, ['--sync-period', '1h'], {
      world: world(),
      logger: createControllerLogger('debug', 'json', stream),
    });
  });
  after(() => platform.stop());

  /** The ExternalId of every AssumeRole the emulator saw, in order. */
  const externalIdsSent = () =>
    platform.aws.calls
      .summary()
      .recent.filter(({ action, outcome }) => action === 'sts:AssumeRole' && outcome === 'success')
      .map(({ detail }) => detail?.['externalId']);
  const identity = (name: string) => platform.get<AWSClusterRoleIdentity>('awsclusterroleidentities', name);
  const request = async () =>
    (await platform.custom.getNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: 'team-a',
      plural: 'awscredentialsrequests',
      name: 'reports',
    })) as AWSCredentialsRequest;
  const requestSecret = () => platform.core.readNamespacedSecret({ namespace: 'team-a', name: 'reports-aws' });
  const readyStatus = async () => ({
    cluster: condition(await platform.cluster('team-a', 'prod'), 'Ready')?.status,
    request: (await request()).status?.conditions?.find(({ type }) => type === 'Ready')?.status,
  });
  const replaceSecret = (data: Record<string, string>) =>
    platform.core.replaceNamespacedSecret({ name: SECRET, namespace: 'keymaster-system', body: secret(data) });

  it("assumes the role with the Secret's externalID; each identity says whether tenants can read its externalID", async () => {
    await eventually(
      async () => expect(await readyStatus()).to.deep.equal({ cluster: 'True', request: 'True' }),
      30_000,
    );
    expect(new Set(externalIdsSent())).to.deep.equal(new Set([EXTERNAL_ID]));
    const confidential = async (name: string) =>
      eventually(async () => {
        const found = (await identity(name)).status?.conditions?.find(({ type }) => type === 'ExternalIDConfidential');
        expect(found, name).to.exist;
        return found!;
      });
    expect(await confidential(ROLE.name)).to.deep.include({ status: 'True', reason: 'ExternalIDInSecret' });
    const legacy = await confidential('legacy');
    expect(legacy).to.deep.include({ status: 'False', reason: 'ExternalIDInSpec' });
    expect(legacy.message).to.include('spec.externalIDSecretRef').and.not.include(EXTERNAL_ID);
  });

  it('a Secret without the key: SecretInvalid naming field and key, no STS call, the request revoked; a new value is assumed at once', async () => {
    const sent = externalIdsSent().length;
    await replaceSecret({ externalId: EXTERNAL_ID });
    const cluster = await eventually(async () => {
      const found = await platform.cluster('team-a', 'prod');
      expect(condition(found, 'PrincipalCredentialRetrieved')).to.include({ status: 'False', reason: 'SecretInvalid' });
      return found;
    });
    expect(condition(cluster, 'PrincipalCredentialRetrieved')?.message).to.include(
      `Secret keymaster-system/${SECRET} of AWSClusterRoleIdentity/tenant (spec.externalIDSecretRef) is invalid: key externalID is missing or empty`,
    );
    await eventually(async () => {
      expect((await request()).status?.conditions?.find(({ type }) => type === 'Ready')).to.include({
        status: 'False',
        reason: 'SecretInvalid',
      });
      expect((await requestSecret()).data ?? {}, 'the request revoked at once').to.deep.equal({});
    });
    expect(externalIdsSent().length, 'AWS was not asked').to.equal(sent);

    await replaceSecret({ externalID: ROTATED });
    await eventually(
      async () => expect(await readyStatus()).to.deep.equal({ cluster: 'True', request: 'True' }),
      30_000,
    );
    expect(externalIdsSent().slice(sent), 'the role assumed again, with the new value only').to.include(ROTATED);
    expect(externalIdsSent().slice(sent)).not.to.include(EXTERNAL_ID);
  });

  it('shows no externalID in logs, events, conditions or identity status', async () => {
    const events = await platform.core.listEventForAllNamespaces();
    const statuses = await Promise.all([
      platform.cluster('team-a', 'prod'),
      request(),
      identity(ROLE.name),
      identity('legacy'),
    ]);
    const shown = [
      ...logs,
      ...events.items.map(({ message }) => message ?? ''),
      ...statuses.map((object) => JSON.stringify(object.status)),
    ].join('\n');
    expect(logs.length, 'the controller logged').to.be.greaterThan(0);
    for (const value of [EXTERNAL_ID, ROTATED]) expect(shown).not.to.include(value);
  });
});
