import { CreateTagsCommand } from '@aws-sdk/client-ec2';
import { TagResourcesCommand } from '@aws-sdk/client-resource-groups-tagging-api';
import { GetCallerIdentityCommand } from '@aws-sdk/client-sts';
import { expect } from 'chai';
import type { CallSummary } from '../src/index.js';
import { assumeRole, ec2Client, failureOf, stsClient, taggingClient } from './support/clients.js';
import { withEmulator } from './support/emulator.js';
import { ACCOUNT, CONTROLLER, EXTERNAL_ID, INSTANCE, ROLES } from './support/world.js';

const ADMIN = { RoleArn: ROLES.tenantAdmin, RoleSessionName: 'accounting', ExternalId: EXTERNAL_ID };
const SESSION_ARN = `arn:aws:sts::${ACCOUNT}:assumed-role/tenant-b-admin/accounting`;

describe('call accounting', () => {
  const context = withEmulator();
  const url = () => context.emulator.url;

  /** Seven calls: four succeed, three are refused at the door, one fails in EC2. */
  async function makeCalls(): Promise<string> {
    await stsClient(url(), CONTROLLER).send(new GetCallerIdentityCommand({}));
    const session = await assumeRole(url(), CONTROLLER, ADMIN);
    await failureOf(assumeRole(url(), CONTROLLER, { ...ADMIN, ExternalId: undefined }));
    await failureOf(
      stsClient(url(), { accessKeyId: 'AKIANOBODYNOBODY0000', secretAccessKey: 'x' }).send(
        new GetCallerIdentityCommand({}),
      ),
    );
    await failureOf(
      stsClient(url(), { ...CONTROLLER, secretAccessKey: 'wrong' }).send(new GetCallerIdentityCommand({})),
    );
    await taggingClient(url(), session).send(
      new TagResourcesCommand({ ResourceARNList: [INSTANCE], Tags: { a: 'b' } }),
    );
    await failureOf(
      ec2Client(url(), session).send(
        new CreateTagsCommand({ Resources: ['i-000000000000000ff'], Tags: [{ Key: 'a', Value: 'b' }] }),
      ),
    );
    return session.accessKeyId;
  }

  it('counts every call by IAM action, by caller and by error code, failed ones too', async () => {
    await makeCalls();
    const { recent, ...counts } = context.emulator.calls.summary();
    expect(counts).to.deep.equal({
      total: 7,
      byAction: { 'sts:GetCallerIdentity': 3, 'sts:AssumeRole': 2, 'tag:TagResources': 1, 'ec2:CreateTags': 1 },
      byCaller: {
        [CONTROLLER.arn]: { 'sts:GetCallerIdentity': 2, 'sts:AssumeRole': 2 },
        anonymous: { 'sts:GetCallerIdentity': 1 },
        [SESSION_ARN]: { 'tag:TagResources': 1, 'ec2:CreateTags': 1 },
      },
      errors: {
        'sts:AssumeRole': { AccessDenied: 1 },
        'sts:GetCallerIdentity': { InvalidClientTokenId: 1, SignatureDoesNotMatch: 1 },
        'ec2:CreateTags': { 'InvalidInstanceID.NotFound': 1 },
      },
    });
    expect(recent).to.have.length(7);
  });

  it('records the access key ID and caller ARN of every call, and what each AssumeRole did', async () => {
    const sessionKey = await makeCalls();
    const { recent } = context.emulator.calls.summary();
    expect(recent.map((call) => call.accessKeyId)).to.deep.equal([
      CONTROLLER.accessKeyId,
      CONTROLLER.accessKeyId,
      CONTROLLER.accessKeyId,
      'AKIANOBODYNOBODY0000',
      CONTROLLER.accessKeyId,
      sessionKey,
      sessionKey,
    ]);
    expect(recent.map((call) => call.callerArn)).to.deep.equal([
      CONTROLLER.arn,
      CONTROLLER.arn,
      CONTROLLER.arn,
      undefined,
      CONTROLLER.arn,
      SESSION_ARN,
      SESSION_ARN,
    ]);
    expect(recent[1]).to.deep.include({
      service: 'sts',
      action: 'sts:AssumeRole',
      region: 'us-west-2',
      account: ACCOUNT,
      outcome: 'success',
      status: 200,
    });
    expect(recent[1]!.detail).to.deep.equal({
      roleArn: ROLES.tenantAdmin,
      roleSessionName: 'accounting',
      externalId: EXTERNAL_ID,
      issuedAccessKeyId: sessionKey,
      sessionArn: SESSION_ARN,
    });
    expect(recent[2]).to.deep.include({ outcome: 'error', errorCode: 'AccessDenied', status: 403 });
    expect(recent[5]!.detail).to.deep.equal({ resourceArns: [INSTANCE], failedArns: [], tagKeys: ['a'] });
  });

  it('never records a secret', async () => {
    await makeCalls();
    const text = JSON.stringify(context.emulator.calls.summary());
    expect(text).to.not.contain(CONTROLLER.secretAccessKey);
    for (const session of context.emulator.world.sessions()) expect(text).to.contain(session.accessKeyId);
    expect(text).to.not.match(/SessionToken|secretAccessKey|IQoJb3JpZ2luX2Vj/);
  });

  it('serves the same summary at GET /_emulator/calls and resets it with DELETE', async () => {
    await makeCalls();
    const served = (await (await fetch(`${url()}/_emulator/calls`)).json()) as CallSummary;
    expect(served).to.deep.equal(context.emulator.calls.summary());
    const reset = (await (await fetch(`${url()}/_emulator/calls`, { method: 'DELETE' })).json()) as CallSummary;
    expect(reset).to.deep.equal({ total: 0, byAction: {}, byCaller: {}, errors: {}, recent: [] });
    await stsClient(url(), CONTROLLER).send(new GetCallerIdentityCommand({}));
    expect(context.emulator.calls.summary().total).to.equal(1);
  });

  it('serves the latest N calls with ?recent=N, the counts alone with ?recent=0, and refuses anything else', async () => {
    await makeCalls();
    const all = context.emulator.calls.summary();
    const get = async (recent: string) => (await fetch(`${url()}/_emulator/calls?recent=${recent}`)).json();
    expect(await get('0')).to.deep.equal({ ...all, recent: [] });
    expect(await get('1')).to.deep.equal({ ...all, recent: all.recent.slice(-1) });
    const refused = await fetch(`${url()}/_emulator/calls?recent=-1`);
    expect(refused.status).to.equal(400);
    expect(await refused.text()).to.contain('recent');
  });
});
