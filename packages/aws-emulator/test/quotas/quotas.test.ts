import { CreateTagsCommand } from '@aws-sdk/client-ec2';
import { GetResourcesCommand, TagResourcesCommand } from '@aws-sdk/client-resource-groups-tagging-api';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { expect } from 'chai';
import { createClock } from '../../src/clock.js';
import { ControlRequestError, InvalidWorldError, startAwsEmulator, validateWorld } from '../../src/index.js';
import { Quotas } from '../../src/quotas/quotas.js';
import { assumeRole, ec2Client, failureOf, stsClient, taggingClient } from '../support/clients.js';
import { withEmulator } from '../support/emulator.js';
import { ACCOUNT, CONTROLLER, EXTERNAL_ID, INSTANCE, REGION, ROLES, testWorld } from '../support/world.js';

/** How many calls in a row the quota admits from a full bucket, the clock standing still. */
function admittedInARow(quotas: Quotas, action: string, account = ACCOUNT, region = REGION): number {
  let admitted = 0;
  while (quotas.admits(action, account, region)) if (++admitted > 10_000) break;
  return admitted;
}

/** A quota set on an emulator clock that moves only when the test advances it. */
function frozen(settings?: ConstructorParameters<typeof Quotas>[1]) {
  const clock = createClock(() => 0);
  return { clock, quotas: new Quotas(clock, settings) };
}

describe("AWS's request quotas", () => {
  describe('buckets per account, region and API family, at the published numbers', () => {
    const published: [string, number, number][] = [
      ['tag:GetResources', 15, 15],
      ['tag:TagResources', 5, 5],
      ['tag:UntagResources', 5, 5],
      ['tag:GetTagKeys', 5, 5],
      ['ec2:CreateTags', 100, 10],
      ['ec2:DeleteTags', 100, 10],
      ['ec2:DescribeTags', 100, 20],
      ['sts:AssumeRole', 600, 600],
    ];
    for (const [action, capacity, refillPerSecond] of published) {
      it(`${action}: ${capacity} at once, then ${refillPerSecond} a second`, () => {
        const { clock, quotas } = frozen();
        expect(admittedInARow(quotas, action)).to.equal(capacity);
        clock.advance(1);
        expect(admittedInARow(quotas, action)).to.equal(refillPerSecond);
        clock.advance(1000);
        expect(admittedInARow(quotas, action)).to.equal(capacity);
      });
    }

    it('counts each EC2 and tagging API on its own, reads apart from writes', () => {
      const { quotas } = frozen();
      expect(admittedInARow(quotas, 'tag:TagResources')).to.equal(5);
      expect(admittedInARow(quotas, 'tag:UntagResources')).to.equal(5);
      expect(admittedInARow(quotas, 'tag:GetResources')).to.equal(15);
      expect(admittedInARow(quotas, 'ec2:CreateTags')).to.equal(100);
      expect(admittedInARow(quotas, 'ec2:DescribeTags')).to.equal(100);
    });

    it('shares one STS bucket among its actions', () => {
      const { quotas } = frozen();
      for (let i = 0; i < 300; i++) expect(quotas.admits('sts:GetCallerIdentity', ACCOUNT, REGION)).to.equal(true);
      expect(admittedInARow(quotas, 'sts:AssumeRole')).to.equal(300);
      expect(quotas.admits('sts:AssumeRoleWithWebIdentity', ACCOUNT, REGION)).to.equal(false);
    });

    it('keeps a bucket per account and per region', () => {
      const { quotas } = frozen();
      expect(admittedInARow(quotas, 'tag:TagResources')).to.equal(5);
      expect(admittedInARow(quotas, 'tag:TagResources', '222222222222')).to.equal(5);
      expect(admittedInARow(quotas, 'tag:TagResources', ACCOUNT, 'us-east-1')).to.equal(5);
    });

    it('lets unquoted actions through', () => {
      const { quotas } = frozen();
      expect(admittedInARow(quotas, 'ec2:RunInstances')).to.be.greaterThan(10_000);
    });
  });

  describe('settings', () => {
    it('off lifts every quota; aws puts them back, their buckets full', () => {
      const { quotas } = frozen('off');
      expect(admittedInARow(quotas, 'tag:TagResources')).to.be.greaterThan(10_000);
      quotas.set('aws');
      expect(admittedInARow(quotas, 'tag:TagResources')).to.equal(5);
      quotas.set('aws');
      expect(admittedInARow(quotas, 'tag:TagResources')).to.equal(5);
    });

    it('replace the numbers of the named buckets only', () => {
      const { clock, quotas } = frozen({ 'tag:TagResources': { capacity: 50, refillPerSecond: 2 } });
      expect(admittedInARow(quotas, 'tag:TagResources')).to.equal(50);
      clock.advance(1);
      expect(admittedInARow(quotas, 'tag:TagResources')).to.equal(2);
      expect(admittedInARow(quotas, 'tag:UntagResources')).to.equal(5);
      const listed = quotas.list().quotas.find((quota) => quota.name === 'tag:TagResources');
      expect(listed).to.include({ capacity: 50, refillPerSecond: 2, overridden: true });
    });

    it('refuse an unknown quota or a bad number, naming the field', () => {
      const { quotas } = frozen();
      expect(() => quotas.set({ 'tag:Nothing': { capacity: 1, refillPerSecond: 1 } }))
        .to.throw(ControlRequestError)
        .with.property('message')
        .that.matches(/^quotas\.tag:Nothing: is not a quota \(quotas: sts:\*, tag:GetResources, /);
      expect(() => quotas.set({ 'ec2:CreateTags': { capacity: 0, refillPerSecond: 1 } })).to.throw(
        'quotas.ec2:CreateTags.capacity: must be a number of at least 1, got 0',
      );
      expect(() => validateWorld({ ...testWorld(), quotas: 'none' }))
        .to.throw(InvalidWorldError)
        .with.property('message')
        .that.matches(/^quotas: must be "off", "aws" or \{/);
    });

    it('come from the world, and the option wins over it', async () => {
      const emulator = await startAwsEmulator({ world: { ...testWorld(), quotas: 'off' } });
      try {
        expect(emulator.quotas.list()).to.deep.equal({ settings: 'off', quotas: [] });
      } finally {
        await emulator.stop();
      }
      const lifted = await startAwsEmulator({ world: { ...testWorld(), quotas: 'off' }, quotas: 'aws' });
      try {
        expect(lifted.quotas.list().settings).to.equal('aws');
      } finally {
        await lifted.stop();
      }
    });
  });

  describe('on the wire', () => {
    const context = withEmulator(() => ({
      ...testWorld(),
      quotas: {
        'tag:TagResources': { capacity: 1, refillPerSecond: 0 },
        'ec2:CreateTags': { capacity: 1, refillPerSecond: 0 },
        'sts:*': { capacity: 1, refillPerSecond: 0 },
      },
    }));
    const url = () => context.emulator.url;
    const TAG = new TagResourcesCommand({ ResourceARNList: [INSTANCE], Tags: { a: 'b' } });
    const CREATE_TAGS = new CreateTagsCommand({ Resources: ['i-0123456789abcdef0'], Tags: [{ Key: 'a', Value: 'b' }] });

    it("answer each service's own throttling error, which the SDK's retry classifies as throttling", async () => {
      const caller = stsClient(url(), CONTROLLER);
      await caller.send(new GetCallerIdentityCommand({}));
      const seen: string[] = [];
      // The SDK's retry middleware hands its strategy the error's class: record it, and retry no more.
      const recording = {
        acquireInitialRetryToken: () => Promise.resolve({ getRetryCount: () => 0, getRetryDelay: () => 0 }),
        refreshRetryTokenForRetry: (_token: unknown, info: { errorType: string; error?: Error }) => {
          seen.push(info.errorType);
          return Promise.reject(info.error ?? new Error(info.errorType));
        },
        recordSuccess: () => undefined,
      };
      const retrying = new STSClient({
        endpoint: url(),
        region: REGION,
        credentials: CONTROLLER,
        retryStrategy: recording,
      });
      const error = await failureOf(retrying.send(new GetCallerIdentityCommand({})));
      expect([error.name, error.message, error.$metadata!.httpStatusCode]).to.deep.equal([
        'Throttling',
        'Rate exceeded',
        400,
      ]);
      expect(seen).to.deep.equal(['THROTTLING']);
    });

    it('throttle the tagging API with ThrottledException (400) and EC2 with RequestLimitExceeded (503)', async () => {
      context.emulator.quotas.set({
        'tag:TagResources': { capacity: 1, refillPerSecond: 0 },
        'ec2:CreateTags': { capacity: 1, refillPerSecond: 0 },
      });
      const admin = await assumeRole(url(), CONTROLLER, {
        RoleArn: ROLES.tenantAdmin,
        RoleSessionName: 'quotas',
        ExternalId: EXTERNAL_ID,
      });
      const tags = taggingClient(url(), admin);
      await tags.send(TAG);
      const tagError = await failureOf(tags.send(TAG));
      expect([tagError.name, tagError.message, tagError.$metadata!.httpStatusCode]).to.deep.equal([
        'ThrottledException',
        'Rate exceeded',
        400,
      ]);
      expect((await tags.send(new GetResourcesCommand({}))).$metadata.httpStatusCode).to.equal(200);
      const instances = ec2Client(url(), admin);
      await instances.send(CREATE_TAGS);
      const ec2Error = await failureOf(instances.send(CREATE_TAGS));
      expect([ec2Error.name, ec2Error.message, ec2Error.$metadata!.httpStatusCode]).to.deep.equal([
        'RequestLimitExceeded',
        'Request limit exceeded.',
        503,
      ]);
      expect(context.emulator.calls.summary().errors).to.deep.include({
        'tag:TagResources': { ThrottledException: 1 },
        'ec2:CreateTags': { RequestLimitExceeded: 1 },
      });
    });

    it('are shown and set over HTTP', async () => {
      const put = await fetch(`${url()}/_emulator/quotas`, { method: 'PUT', body: JSON.stringify('off') });
      expect(put.status).to.equal(200);
      for (let i = 0; i < 3; i++) await stsClient(url(), CONTROLLER).send(new GetCallerIdentityCommand({}));
      const listed = (await (await fetch(`${url()}/_emulator/quotas`)).json()) as { settings: unknown };
      expect(listed.settings).to.equal('off');
      const refused = await fetch(`${url()}/_emulator/quotas`, { method: 'PUT', body: JSON.stringify('some') });
      expect(refused.status).to.equal(400);
    });
  });
});
