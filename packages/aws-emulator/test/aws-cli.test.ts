import { expect } from 'chai';
import { AwsCli } from './support/aws-cli.js';
import type { Keys } from './support/clients.js';
import { withEmulator } from './support/emulator.js';
import { ACCOUNT, CONTROLLER, EXTERNAL_ID, INSTANCE, OWNED, ROLES, VPC } from './support/world.js';

const ASSUME_ROLE = ['sts', 'assume-role', '--role-arn', ROLES.tenantAdmin, '--role-session-name', 'cli'];

/**
 * The real AWS CLI v2 (Debian's /usr/bin/aws, botocore underneath) against the emulator. Each call costs
 * about half a second, so this suite covers a representative set; the SDK suites cover the rest.
 */
describe('the AWS CLI v2', function () {
  this.timeout(30_000);
  const context = withEmulator();
  let cli: AwsCli;
  before(async () => {
    cli = await AwsCli.create();
  });
  after(async () => {
    await cli.dispose();
  });

  const aws = (keys: Keys, ...args: string[]) => cli.run(context.emulator.url, keys, args);
  const json = async (keys: Keys, ...args: string[]) => {
    const result = await aws(keys, ...args);
    expect(result.code, result.stderr).to.equal(0);
    return JSON.parse(result.stdout) as Record<string, unknown>;
  };
  const assume = async (...options: string[]): Promise<Keys> => {
    const out = await json(CONTROLLER, ...ASSUME_ROLE, '--external-id', EXTERNAL_ID, ...options);
    const credentials = out.Credentials as Record<string, string>;
    return {
      accessKeyId: credentials.AccessKeyId!,
      secretAccessKey: credentials.SecretAccessKey!,
      sessionToken: credentials.SessionToken!,
    };
  };

  it('signs without x-amz-content-sha256 and gets its identity', async () => {
    expect(await json(CONTROLLER, 'sts', 'get-caller-identity')).to.deep.include({
      Account: ACCOUNT,
      Arn: CONTROLLER.arn,
    });
  });

  it('assumes a role with its ExternalId, and acts as the session', async () => {
    const session = await assume();
    expect(session.accessKeyId).to.match(/^ASIA/);
    const identity = await json(session, 'sts', 'get-caller-identity');
    expect(identity.Arn).to.equal(`arn:aws:sts::${ACCOUNT}:assumed-role/tenant-b-admin/cli`);
  });

  it('reports AccessDenied without the ExternalId and SignatureDoesNotMatch with a wrong secret', async () => {
    const denied = await aws(CONTROLLER, ...ASSUME_ROLE);
    expect(denied.code).to.equal(254);
    expect(denied.stderr).to.contain('An error occurred (AccessDenied) when calling the AssumeRole operation');
    const wrong = await aws({ ...CONTROLLER, secretAccessKey: 'wrong' }, 'sts', 'get-caller-identity');
    expect(wrong.stderr).to.contain('(SignatureDoesNotMatch)');
  });

  it('passes session policies (inline and ARNs), and the session can do only what they allow', async () => {
    const onlyGetResources = JSON.stringify({
      Version: '2012-10-17',
      Statement: [{ Effect: 'Allow', Action: 'tag:GetResources', Resource: '*' }],
    });
    const session = await assume('--policy', onlyGetResources);
    await json(session, 'resourcegroupstaggingapi', 'get-resources');
    const refused = await aws(session, 'ec2', 'describe-tags');
    expect(refused.stderr).to.contain(
      `An error occurred (UnauthorizedOperation) when calling the DescribeTags operation (reached max retries: 0): You are not authorized to perform this operation. User: arn:aws:sts::${ACCOUNT}:assumed-role/tenant-b-admin/cli is not authorized to perform: ec2:DescribeTags because no session policy allows the ec2:DescribeTags action`,
    );
    const managed = await assume('--policy-arns', `arn=arn:aws:iam::${ACCOUNT}:policy/ReadTags`);
    await json(managed, 'ec2', 'describe-tags');
    const write = await aws(
      managed,
      'resourcegroupstaggingapi',
      'tag-resources',
      '--resource-arn-list',
      INSTANCE,
      '--tags',
      'a=b',
    );
    expect(write.stderr).to.contain(
      'An error occurred (AccessDeniedException) when calling the TagResources operation',
    );
  });

  it('reports ExpiredToken once the emulator clock passes the session’s expiry', async () => {
    const session = await assume();
    context.emulator.clock.advance(3601);
    const expired = await aws(session, 'sts', 'get-caller-identity');
    expect(expired.stderr).to.contain('An error occurred (ExpiredToken) when calling the GetCallerIdentity operation');
  });

  it('reads and writes tags through the tagging API', async () => {
    const session = await assume();
    const found = await json(
      session,
      'resourcegroupstaggingapi',
      'get-resources',
      '--tag-filters',
      `Key=${OWNED},Values=owned`,
    );
    expect((found.ResourceTagMappingList as { ResourceARN: string }[]).map((r) => r.ResourceARN)).to.deep.equal([
      INSTANCE,
      VPC,
    ]);
    const missing = INSTANCE.replace('i-0123456789abcdef0', 'i-0000000000000beef');
    const tagged = await json(
      session,
      'resourcegroupstaggingapi',
      'tag-resources',
      '--resource-arn-list',
      INSTANCE,
      missing,
      '--tags',
      'team=b',
    );
    expect(Object.keys(tagged.FailedResourcesMap as object)).to.deep.equal([missing]);
    expect(context.emulator.world.listResources().find((r) => r.arn === INSTANCE)!.tags).to.include({ team: 'b' });
  });

  it('creates, describes and deletes EC2 tags', async () => {
    const session = await assume();
    const created = await aws(
      session,
      'ec2',
      'create-tags',
      '--resources',
      'i-0123456789abcdef0',
      '--tags',
      'Key=team,Value=b',
    );
    expect(created.code, created.stderr).to.equal(0);
    const described = await json(session, 'ec2', 'describe-tags', '--filters', 'Name=key,Values=team');
    expect(described.Tags).to.deep.equal([
      { Key: 'team', ResourceId: 'i-0123456789abcdef0', ResourceType: 'instance', Value: 'b' },
    ]);
    const deleted = await aws(
      session,
      'ec2',
      'delete-tags',
      '--resources',
      'i-0123456789abcdef0',
      '--tags',
      'Key=team,Value=c',
    );
    expect(deleted.code).to.equal(0);
    expect(context.emulator.world.listResources().find((r) => r.arn === INSTANCE)!.tags).to.include({ team: 'b' });
  });

  it('reports an injected throttle as RequestLimitExceeded', async () => {
    const session = await assume();
    context.emulator.faults.add({ action: 'ec2:DescribeTags', errorCode: 'RequestLimitExceeded' });
    const throttled = await aws(session, 'ec2', 'describe-tags');
    expect(throttled.stderr).to.contain(
      'An error occurred (RequestLimitExceeded) when calling the DescribeTags operation',
    );
  });
});
