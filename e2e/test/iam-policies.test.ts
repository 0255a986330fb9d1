import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  GetResourcesCommand,
  ResourceGroupsTaggingAPIClient,
  TagResourcesCommand,
} from '@aws-sdk/client-resource-groups-tagging-api';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { roleTrustPolicy } from '@keymaster/api';
import { startAwsEmulator, type AwsEmulator } from '@keymaster/aws-emulator';
import { expect } from 'chai';
import {
  CONTROLLER_KEY,
  CONTROLLER_USER,
  HUB_ROLE,
  MANAGEMENT,
  clusterResources,
  emulatorTrust,
  roleArn,
} from './support/aws-world.js';
import { REPO_ROOT } from './support/controller-process.js';

const TENANT = '222222222222';
const TENANT_ROLE = roleArn(TENANT, 'keymaster-tenant');
const EXTERNAL_ID = 'e2e-iam-policies-external-id';
const REGION = 'eu-west-1';
const policyArn = (account: string, name: string) => `arn:aws:iam::${account}:policy/${name}`;

type Credentials = { accessKeyId: string; secretAccessKey: string; sessionToken?: string };

/** deploy/iam's permission policy `name`, as committed. */
const committed = async (name: string): Promise<unknown> =>
  JSON.parse(await readFile(join(REPO_ROOT, 'deploy/iam', `${name}.json`), 'utf8'));

/**
 * deploy/iam's policies attached as written (managed policies of the world, not the `allow` shorthand
 * that the other tests use), with the trust policies of the same source: the controller's principal
 * reaches a tenant account through the hub with the tenant's externalID and tags there, and each role
 * can do no more than its part.
 */
describe("deploy/iam's policies, attached as written, on the aws-emulator", function () {
  let aws: AwsEmulator | undefined;
  let resources: string[];

  const sts = (credentials: Credentials) =>
    new STSClient({ region: REGION, endpoint: aws!.url, maxAttempts: 1, credentials });
  const tagging = (credentials: Credentials) =>
    new ResourceGroupsTaggingAPIClient({ region: REGION, endpoint: aws!.url, maxAttempts: 1, credentials });
  const assume = async (credentials: Credentials, RoleArn: string, ExternalId?: string): Promise<Credentials> => {
    const { Credentials: session } = await sts(credentials).send(
      new AssumeRoleCommand({ RoleArn, RoleSessionName: 'keymaster', ...(ExternalId ? { ExternalId } : {}) }),
    );
    return {
      accessKeyId: session!.AccessKeyId!,
      secretAccessKey: session!.SecretAccessKey!,
      sessionToken: session!.SessionToken!,
    };
  };
  const outcome = (call: Promise<unknown>) =>
    call.then(
      () => 'allowed',
      (error: unknown) => (error as Error).name,
    );

  before(async () => {
    const assumeRoles = policyArn(MANAGEMENT, 'keymaster-assume-roles');
    const tagger = policyArn(TENANT, 'keymaster-tagging');
    const owned = clusterResources(TENANT, REGION, 'payments', 3);
    resources = owned.map(({ arn }) => arn);
    aws = await startAwsEmulator({
      world: {
        accounts: [
          {
            id: MANAGEMENT,
            policies: [{ arn: assumeRoles, document: await committed('assume-roles-policy') }],
            users: [{ name: 'keymaster-controller', accessKeys: [CONTROLLER_KEY], policies: [assumeRoles] }],
            roles: [
              {
                name: 'keymaster-hub',
                trust: emulatorTrust(roleTrustPolicy({ principal: CONTROLLER_USER })),
                policies: [assumeRoles],
              },
            ],
          },
          {
            id: TENANT,
            policies: [{ arn: tagger, document: await committed('tagging-policy') }],
            roles: [
              {
                name: 'keymaster-tenant',
                trust: emulatorTrust(roleTrustPolicy({ principal: HUB_ROLE, externalId: EXTERNAL_ID })),
                policies: [tagger],
              },
            ],
            resources: owned,
          },
        ],
      },
    });
  });
  after(() => aws?.stop());

  it("the controller's principal assumes the hub, the hub the tenant role with the externalID, and the tenant role tags", async () => {
    const hub = await assume({ ...CONTROLLER_KEY }, HUB_ROLE);
    const tenant = await assume(hub, TENANT_ROLE, EXTERNAL_ID);
    const result = await tagging(tenant).send(
      new TagResourcesCommand({ ResourceARNList: resources, Tags: { 'cost-center': 'payments' } }),
    );
    expect(result.FailedResourcesMap ?? {}).to.deep.equal({});
    const { ResourceTagMappingList = [] } = await tagging(tenant).send(
      new GetResourcesCommand({ TagFilters: [{ Key: 'cost-center', Values: ['payments'] }] }),
    );
    expect(ResourceTagMappingList.map(({ ResourceARN }) => ResourceARN).sort()).to.deep.equal([...resources].sort());
  });

  it('without the externalID, or with another, the hub is refused the tenant role', async () => {
    const hub = await assume({ ...CONTROLLER_KEY }, HUB_ROLE);
    expect(await outcome(assume(hub, TENANT_ROLE))).to.equal('AccessDenied');
    expect(await outcome(assume(hub, TENANT_ROLE, `${EXTERNAL_ID}-other`))).to.equal('AccessDenied');
  });

  it('the controller’s principal and the hub may not tag; the tenant role may not assume roles', async () => {
    const hub = await assume({ ...CONTROLLER_KEY }, HUB_ROLE);
    const tenant = await assume(hub, TENANT_ROLE, EXTERNAL_ID);
    for (const [name, credentials] of [
      ['controller', { ...CONTROLLER_KEY }],
      ['hub', hub],
    ] as const) {
      const call = tagging(credentials).send(new TagResourcesCommand({ ResourceARNList: resources, Tags: { a: 'b' } }));
      expect(await outcome(call), name).to.equal('AccessDeniedException');
    }
    expect(await outcome(assume(tenant, HUB_ROLE))).to.equal('AccessDenied');
  });
});
