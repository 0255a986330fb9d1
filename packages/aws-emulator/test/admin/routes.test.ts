import { GetResourcesCommand } from '@aws-sdk/client-resource-groups-tagging-api';
import { GetCallerIdentityCommand } from '@aws-sdk/client-sts';
import { expect } from 'chai';
import { assumeRole, failureOf, stsClient, taggingClient } from '../support/clients.js';
import { withEmulator } from '../support/emulator.js';
import { ACCOUNT, CONTROLLER, EXTERNAL_ID, INSTANCE, OWNED, REGION, ROLES } from '../support/world.js';

const ADMIN = { RoleArn: ROLES.tenantAdmin, RoleSessionName: 'admin', ExternalId: EXTERNAL_ID };

describe('admin paths under /_emulator', () => {
  const context = withEmulator();
  async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
    const response = await fetch(`${context.emulator.url}/_emulator/${path}`, {
      method,
      ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    return { status: response.status, json: await response.json() };
  }
  const listedArns = async () => {
    const session = await assumeRole(context.emulator.url, CONTROLLER, ADMIN);
    const page = await taggingClient(context.emulator.url, session).send(new GetResourcesCommand({}));
    return page.ResourceTagMappingList!.map((mapping) => mapping.ResourceARN);
  };

  it('GET health answers ok', async () => {
    expect(await call('GET', 'health')).to.deep.equal({ status: 200, json: { status: 'ok' } });
  });

  describe('clock', () => {
    it('moves forward with POST {advanceSeconds} and reports the new time', async () => {
      const before = context.emulator.clock.nowMs();
      const { status, json } = await call('POST', 'clock', { advanceSeconds: 7200 });
      expect(status).to.equal(200);
      const { now, offsetSeconds } = json as { now: string; offsetSeconds: number };
      expect(offsetSeconds).to.equal(7200);
      expect(Date.parse(now) - before).to.be.within(7200_000, 7260_000);
    });

    it('refuses a negative advance with a hint', async () => {
      const { status, json } = await call('POST', 'clock', { advanceSeconds: -5 });
      expect(status).to.equal(400);
      expect(json).to.deep.equal({
        error: {
          code: 'ERR_KEYMASTER_AWS_EMULATOR_BAD_REQUEST',
          message: 'advanceSeconds must be a number >= 0',
          hint: 'Send {"advanceSeconds": 3600}.',
        },
      });
    });
  });

  describe('resources', () => {
    it('GET lists every resource with its tags', async () => {
      const { json } = await call('GET', 'resources');
      expect(json).to.deep.include({ arn: INSTANCE, tags: { [OWNED]: 'owned', Name: 'prod-1-control-plane' } });
    });

    it('POST replaces the tags of an existing resource, as a change made outside Keymaster would (drift)', async () => {
      const { status } = await call('POST', 'resources', { arn: INSTANCE, tags: { [OWNED]: 'shared' } });
      expect(status).to.equal(200);
      const session = await assumeRole(context.emulator.url, CONTROLLER, ADMIN);
      const page = await taggingClient(context.emulator.url, session).send(
        new GetResourcesCommand({ ResourceARNList: [INSTANCE] }),
      );
      expect(page.ResourceTagMappingList![0]!.Tags).to.deep.equal([{ Key: OWNED, Value: 'shared' }]);
    });

    it('POST adds new resources, and DELETE removes one', async () => {
      const arn = `arn:aws:ec2:${REGION}:${ACCOUNT}:security-group/sg-0123456789abcdef0`;
      await call('POST', 'resources', [{ arn, tags: { tier: 'web' } }]);
      expect(await listedArns()).to.include(arn);
      expect((await call('DELETE', `resources?arn=${encodeURIComponent(arn)}`)).status).to.equal(200);
      expect(await listedArns()).to.not.include(arn);
    });

    it('refuses a resource outside the world’s accounts, naming the field', async () => {
      const { status, json } = await call('POST', 'resources', {
        arn: 'arn:aws:ec2:us-west-2:999999999999:vpc/vpc-1',
        tags: {},
      });
      expect(status).to.equal(400);
      expect((json as { error: { message: string } }).error.message).to.match(/^resources\[0\]\.arn must be the ARN/);
    });

    it('refuses more than 50 user tags', async () => {
      const tags = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']));
      const { status, json } = await call('POST', 'resources', { arn: INSTANCE, tags });
      expect(status).to.equal(400);
      expect((json as { error: { message: string } }).error.message).to.equal(
        'resources[0].tags: has 51 user tags; AWS allows at most 50',
      );
    });
  });

  describe('access keys', () => {
    it('rotate a user’s keys: the new key signs as the user, the deleted key is unknown', async () => {
      const rotated = { accessKeyId: 'AKIAROTATEDROTATED00', secretAccessKey: 'rotated-secret-0123456789' };
      expect((await call('POST', 'access-keys', { userArn: CONTROLLER.arn, ...rotated })).status).to.equal(200);
      const identity = await stsClient(context.emulator.url, rotated).send(new GetCallerIdentityCommand({}));
      expect(identity.Arn).to.equal(CONTROLLER.arn);
      expect((await call('DELETE', `access-keys/${CONTROLLER.accessKeyId}`)).status).to.equal(200);
      const error = await failureOf(stsClient(context.emulator.url, CONTROLLER).send(new GetCallerIdentityCommand({})));
      expect(error.name).to.equal('InvalidClientTokenId');
    });

    it('refuse a key for an unknown user, or a key ID already in use', async () => {
      const key = { accessKeyId: 'AKIAROTATEDROTATED00', secretAccessKey: 's' };
      expect(
        (await call('POST', 'access-keys', { userArn: `arn:aws:iam::${ACCOUNT}:user/nobody`, ...key })).status,
      ).to.equal(404);
      expect((await call('POST', 'access-keys', { userArn: CONTROLLER.arn, ...CONTROLLER })).status).to.equal(409);
    });
  });

  it('GET sessions lists the sessions STS issued, without secrets', async () => {
    const session = await assumeRole(context.emulator.url, CONTROLLER, ADMIN);
    const { json } = await call('GET', 'sessions');
    const [view] = json as Record<string, unknown>[];
    expect(view).to.deep.include({
      accessKeyId: session.accessKeyId,
      arn: `arn:aws:sts::${ACCOUNT}:assumed-role/tenant-b-admin/admin`,
      roleArn: ROLES.tenantAdmin,
      sessionName: 'admin',
      sourceArn: CONTROLLER.arn,
      chained: false,
    });
    expect(JSON.stringify(json)).to.not.contain(session.secretAccessKey).and.not.contain(session.sessionToken);
  });

  it('answers 404 for an unknown path, 405 for a wrong method and 400 for a body that is not JSON', async () => {
    expect((await call('GET', 'nothing')).status).to.equal(404);
    expect((await call('PUT', 'clock', {})).status).to.equal(405);
    const response = await fetch(`${context.emulator.url}/_emulator/clock`, { method: 'POST', body: '{nope' });
    expect(response.status).to.equal(400);
  });
});
