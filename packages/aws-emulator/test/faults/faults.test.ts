import { CreateTagsCommand, EC2Client } from '@aws-sdk/client-ec2';
import { GetResourcesCommand } from '@aws-sdk/client-resource-groups-tagging-api';
import { AssumeRoleCommand, GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { expect } from 'chai';
import { ControlRequestError } from '../../src/index.js';
import { assumeRole, ec2Client, failureOf, stsClient, taggingClient, type Keys } from '../support/clients.js';
import { withEmulator } from '../support/emulator.js';
import { CONTROLLER, EXTERNAL_ID, REGION, ROLES } from '../support/world.js';

const ADMIN = { RoleArn: ROLES.tenantAdmin, RoleSessionName: 'faults', ExternalId: EXTERNAL_ID };
const CREATE_TAGS = new CreateTagsCommand({ Resources: ['i-0123456789abcdef0'], Tags: [{ Key: 'a', Value: 'b' }] });

async function post(url: string, path: string, body: unknown): Promise<Response> {
  return fetch(`${url}/_emulator/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('faults and throttling', () => {
  const context = withEmulator();
  const url = () => context.emulator.url;
  let session: Keys;
  beforeEach(async () => {
    session = await assumeRole(url(), CONTROLLER, ADMIN);
  });

  describe('injected errors', () => {
    it('fail only the matching action, with the code the SDK names', async () => {
      context.emulator.faults.add({ action: 'sts:AssumeRole', errorCode: 'Throttling' });
      const error = await failureOf(assumeRole(url(), CONTROLLER, ADMIN));
      expect(error.name).to.equal('Throttling');
      const identity = await stsClient(url(), CONTROLLER).send(new GetCallerIdentityCommand({}));
      expect(identity.Arn).to.equal(CONTROLLER.arn);
    });

    it('are added over HTTP, with wildcards, and carry AWS’s HTTP status', async () => {
      expect((await post(url(), 'faults', { action: 'tag:*', errorCode: 'ThrottledException' })).status).to.equal(200);
      expect(
        (await post(url(), 'faults', { action: 'ec2:CreateTags', errorCode: 'RequestLimitExceeded' })).status,
      ).to.equal(200);
      expect((await failureOf(taggingClient(url(), session).send(new GetResourcesCommand({})))).name).to.equal(
        'ThrottledException',
      );
      const ec2 = await failureOf(ec2Client(url(), session).send(CREATE_TAGS));
      expect([ec2.name, ec2.$metadata!.httpStatusCode]).to.deep.equal(['RequestLimitExceeded', 503]);
    });

    it('answer InternalFailure with status 500', async () => {
      context.emulator.faults.add({ action: 'sts:GetCallerIdentity', errorCode: 'InternalFailure' });
      const error = await failureOf(stsClient(url(), CONTROLLER).send(new GetCallerIdentityCommand({})));
      expect([error.name, error.$metadata!.httpStatusCode]).to.deep.equal(['InternalFailure', 500]);
    });

    it('fire `count` times, so the SDK’s own retries get through', async () => {
      // A transient error: the SDK backs off from it for a tenth of a second or so (from throttling, for seconds).
      context.emulator.faults.add({ action: 'sts:AssumeRole', errorCode: 'InternalFailure', count: 2 });
      const retrying = new STSClient({ endpoint: url(), region: REGION, credentials: CONTROLLER, maxAttempts: 3 });
      const result = await retrying.send(new AssumeRoleCommand(ADMIN));
      expect(result.$metadata.attempts).to.equal(3);
      const summary = context.emulator.calls.summary();
      expect(summary.errors['sts:AssumeRole']).to.deep.equal({ InternalFailure: 2 });
      expect(context.emulator.faults.list().faults[0]!.remaining).to.equal(0);
    });

    it('never fire at rate 0', async () => {
      context.emulator.faults.add({ action: '*', errorCode: 'InternalFailure', rate: 0 });
      const identity = await stsClient(url(), CONTROLLER).send(new GetCallerIdentityCommand({}));
      expect(identity.Arn).to.equal(CONTROLLER.arn);
    });

    it('can add latency alone, leaving the answer intact', async () => {
      context.emulator.faults.add({ action: 'sts:GetCallerIdentity', latencyMs: 5 });
      const identity = await stsClient(url(), CONTROLLER).send(new GetCallerIdentityCommand({}));
      expect(identity.Arn).to.equal(CONTROLLER.arn);
    });

    it('are removed by ID or all at once', async () => {
      const rule = context.emulator.faults.add({ action: 'sts:*', errorCode: 'Throttling' });
      expect((await fetch(`${url()}/_emulator/faults/${rule.id}`, { method: 'DELETE' })).status).to.equal(200);
      await stsClient(url(), CONTROLLER).send(new GetCallerIdentityCommand({}));
      context.emulator.faults.add({ action: 'sts:*', errorCode: 'Throttling' });
      await fetch(`${url()}/_emulator/faults`, { method: 'DELETE' });
      expect(context.emulator.faults.list()).to.deep.equal({ faults: [], throttles: [] });
    });

    it('refuse a rule that names a wrong field value, saying which', () => {
      expect(() => context.emulator.faults.add({ errorCode: 'Throttling', rate: 2 }))
        .to.throw(ControlRequestError)
        .with.property('message', 'rate must be a number from 0 to 1, got 2');
      expect(() => context.emulator.faults.add({ action: 'sts:AssumeRole' })).to.throw(
        /needs errorCode, latencyMs or both/,
      );
    });
  });

  describe('token buckets per account and region', () => {
    beforeEach(async () => {
      const response = await post(url(), 'throttles', { action: 'ec2:*', capacity: 2, refillPerSecond: 0.001 });
      expect(response.status).to.equal(200);
    });

    it('answer RequestLimitExceeded once the bucket is empty', async () => {
      const ec2 = ec2Client(url(), session);
      await ec2.send(CREATE_TAGS);
      await ec2.send(CREATE_TAGS);
      expect((await failureOf(ec2.send(CREATE_TAGS))).name).to.equal('RequestLimitExceeded');
    });

    it('keep a separate bucket for each region', async () => {
      const ec2 = ec2Client(url(), session);
      await ec2.send(CREATE_TAGS);
      await ec2.send(CREATE_TAGS);
      const east = new EC2Client({ endpoint: url(), region: 'us-east-1', credentials: session, maxAttempts: 1 });
      const result = await east.send(
        new CreateTagsCommand({ Resources: ['i-0fedcba9876543210'], Tags: [{ Key: 'a', Value: 'b' }] }),
      );
      expect(result.$metadata.httpStatusCode).to.equal(200);
      expect((await failureOf(ec2.send(CREATE_TAGS))).name).to.equal('RequestLimitExceeded');
    });

    it('refill on the emulator clock', async () => {
      const ec2 = ec2Client(url(), session);
      await ec2.send(CREATE_TAGS);
      await ec2.send(CREATE_TAGS);
      context.emulator.clock.advance(1000);
      await ec2.send(CREATE_TAGS);
      expect((await failureOf(ec2.send(CREATE_TAGS))).name).to.equal('RequestLimitExceeded');
    });

    it('throttle the tagging API with ThrottledException and STS with Throttling', async () => {
      context.emulator.faults.throttle({ action: 'tag:GetResources', capacity: 1, refillPerSecond: 0 });
      context.emulator.faults.throttle({ action: 'sts:GetCallerIdentity', capacity: 1, refillPerSecond: 0 });
      const tagging = taggingClient(url(), session);
      await tagging.send(new GetResourcesCommand({}));
      expect((await failureOf(tagging.send(new GetResourcesCommand({})))).name).to.equal('ThrottledException');
      const sts = stsClient(url(), session);
      await sts.send(new GetCallerIdentityCommand({}));
      expect((await failureOf(sts.send(new GetCallerIdentityCommand({})))).name).to.equal('Throttling');
    });
  });
});
