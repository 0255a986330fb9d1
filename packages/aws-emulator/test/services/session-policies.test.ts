import { CreateTagsCommand, DescribeTagsCommand } from '@aws-sdk/client-ec2';
import { GetResourcesCommand, TagResourcesCommand } from '@aws-sdk/client-resource-groups-tagging-api';
import { AssumeRoleCommand, GetCallerIdentityCommand, type AssumeRoleCommandInput } from '@aws-sdk/client-sts';
import { expect } from 'chai';
import { ec2Client, failureOf, stsClient, taggingClient, type Keys } from '../support/clients.js';
import { withEmulator } from '../support/emulator.js';
import { ACCOUNT, CONTROLLER, EXTERNAL_ID, INSTANCE, ROLES } from '../support/world.js';

const ADMIN = { RoleArn: ROLES.tenantAdmin, RoleSessionName: 'narrow', ExternalId: EXTERNAL_ID };
const SESSION_ARN = `arn:aws:sts::${ACCOUNT}:assumed-role/tenant-b-admin/narrow`;
const READ_TAGS = `arn:aws:iam::${ACCOUNT}:policy/ReadTags`;
const TAG_ONLY = `arn:aws:iam::${ACCOUNT}:policy/TagOnly`;
const ONLY_GET_RESOURCES = JSON.stringify({
  Version: '2012-10-17',
  Statement: [{ Effect: 'Allow', Action: 'tag:GetResources', Resource: '*' }],
});

/** AWS's sentence for a call the session policies do not allow. */
const noSessionPolicy = (action: string, resource?: string) =>
  `User: ${SESSION_ARN} is not authorized to perform: ${action}${resource ? ` on resource: ${resource}` : ''} because no session policy allows the ${action} action`;

/**
 * The proof that session policies narrow what a role's credentials can do, with the real SDK over HTTP:
 * the session may do what both the role's identity policies and at least one of its session policies
 * (the inline `Policy` or a managed policy of `PolicyArns`) allow, nothing else.
 */
describe('session policies (Policy and PolicyArns)', () => {
  const context = withEmulator();
  const assume = async (
    input: Partial<AssumeRoleCommandInput>,
    role: Pick<AssumeRoleCommandInput, 'RoleArn' | 'RoleSessionName'> = ADMIN,
  ) => {
    const answer = await stsClient(context.emulator.url, CONTROLLER).send(new AssumeRoleCommand({ ...role, ...input }));
    const keys: Keys = {
      accessKeyId: answer.Credentials!.AccessKeyId!,
      secretAccessKey: answer.Credentials!.SecretAccessKey!,
      sessionToken: answer.Credentials!.SessionToken!,
    };
    return { answer, keys };
  };
  const clients = (keys: Keys) => ({
    tagging: taggingClient(context.emulator.url, keys),
    ec2: ec2Client(context.emulator.url, keys),
    sts: stsClient(context.emulator.url, keys),
  });
  const tagResources = () => new TagResourcesCommand({ ResourceARNList: [INSTANCE], Tags: { team: 'b' } });
  const createTags = () =>
    new CreateTagsCommand({ Resources: ['i-0123456789abcdef0'], Tags: [{ Key: 'team', Value: 'b' }] });

  it('a session whose only statement allows tag:GetResources can do that and nothing else', async () => {
    const { keys } = await assume({ Policy: ONLY_GET_RESOURCES });
    const { tagging, ec2, sts } = clients(keys);
    expect((await tagging.send(new GetResourcesCommand({}))).ResourceTagMappingList).to.not.be.empty;

    const tagWrite = await failureOf(tagging.send(tagResources()));
    expect([tagWrite.name, tagWrite.message, tagWrite.$metadata?.httpStatusCode]).to.deep.equal([
      'AccessDeniedException',
      noSessionPolicy('tag:TagResources'),
      400,
    ]);
    const ec2Write = await failureOf(ec2.send(createTags()));
    expect([ec2Write.name, ec2Write.message]).to.deep.equal([
      'UnauthorizedOperation',
      `You are not authorized to perform this operation. ${noSessionPolicy('ec2:CreateTags', INSTANCE)}`,
    ]);
    const ec2Read = await failureOf(ec2.send(new DescribeTagsCommand({})));
    expect(ec2Read.message).to.contain(noSessionPolicy('ec2:DescribeTags'));
    const chain = await failureOf(
      sts.send(new AssumeRoleCommand({ RoleArn: ROLES.readOnly, RoleSessionName: 'onwards' })),
    );
    expect([chain.name, chain.message, chain.$metadata?.httpStatusCode]).to.deep.equal([
      'AccessDenied',
      noSessionPolicy('sts:AssumeRole', ROLES.readOnly),
      403,
    ]);
    // Asking who one is needs no permission, as on AWS.
    expect((await sts.send(new GetCallerIdentityCommand({}))).Arn).to.equal(SESSION_ARN);
  });

  it('policy ARNs narrow alike: the managed policy’s document is the session policy', async () => {
    const { keys } = await assume({ PolicyArns: [{ arn: READ_TAGS }] });
    const { tagging, ec2 } = clients(keys);
    await tagging.send(new GetResourcesCommand({}));
    await ec2.send(new DescribeTagsCommand({}));
    expect((await failureOf(tagging.send(tagResources()))).message).to.equal(noSessionPolicy('tag:TagResources'));
    expect((await failureOf(ec2.send(createTags()))).name).to.equal('UnauthorizedOperation');
  });

  it('inline and managed session policies together allow their union, never more than the role', async () => {
    const createTagsOnly = JSON.stringify({
      Version: '2012-10-17',
      Statement: [{ Effect: 'Allow', Action: 'ec2:CreateTags', Resource: '*' }],
    });
    const { keys } = await assume({ Policy: createTagsOnly, PolicyArns: [{ arn: READ_TAGS }] });
    const { tagging, ec2 } = clients(keys);
    await ec2.send(createTags()); // the inline policy's
    await tagging.send(new GetResourcesCommand({})); // the managed policy's
    expect((await failureOf(tagging.send(tagResources()))).message).to.equal(noSessionPolicy('tag:TagResources'));

    // TagOnly allows tag:*, but this role's identity policy allows only tag:GetResources.
    const narrowRole = { RoleArn: ROLES.auditByAccount, RoleSessionName: 'narrow' };
    const wide = await assume({ PolicyArns: [{ arn: TAG_ONLY }], Policy: createTagsOnly }, narrowRole);
    const refused = await failureOf(taggingClient(context.emulator.url, wide.keys).send(tagResources()));
    expect(refused.message).to.equal(
      `User: arn:aws:sts::${ACCOUNT}:assumed-role/audit-by-account/narrow is not authorized to perform: tag:TagResources because no identity-based policy allows the tag:TagResources action`,
    );
  });

  it('an explicit deny in any session policy wins over the others’ allow', async () => {
    const denyGetResources = JSON.stringify({
      Version: '2012-10-17',
      Statement: [{ Effect: 'Deny', Action: 'tag:GetResources', Resource: '*' }],
    });
    const { keys } = await assume({ Policy: denyGetResources, PolicyArns: [{ arn: READ_TAGS }] });
    const refused = await failureOf(taggingClient(context.emulator.url, keys).send(new GetResourcesCommand({})));
    expect(refused.message).to.equal(
      `User: ${SESSION_ARN} is not authorized to perform: tag:GetResources with an explicit deny in a session policy`,
    );
  });

  describe('what STS refuses', () => {
    const refusal = async (input: Partial<AssumeRoleCommandInput>) => {
      const error = await failureOf(assume(input));
      return [error.name, error.message, error.$metadata?.httpStatusCode];
    };

    it('an ARN that names no managed policy, as MalformedPolicyDocument', async () => {
      const missing = `arn:aws:iam::${ACCOUNT}:policy/Missing`;
      expect(await refusal({ PolicyArns: [{ arn: missing }] })).to.deep.equal([
        'MalformedPolicyDocumentException',
        `Policy ${missing} does not exist or is not attachable.`,
        400,
      ]);
    });

    it('more than 10 policy ARNs, with a ValidationError showing them as AWS shows structures', async () => {
      const arns = Array.from({ length: 11 }, () => ({ arn: READ_TAGS }));
      expect(await refusal({ PolicyArns: arns })).to.deep.equal([
        'ValidationError',
        `1 validation error detected: Value '[${arns.map(() => `{arn=${READ_TAGS}}`).join(', ')}]' at 'policyArns' failed to satisfy constraint: Member must have length less than or equal to 10`,
        400,
      ]);
      const { answer } = await assume({ PolicyArns: arns.slice(1) });
      expect(answer.Credentials?.AccessKeyId).to.match(/^ASIA/);
    });

    it('session policies and tags whose packed form exceeds the budget, as PackedPolicyTooLarge with the percentage', async () => {
      // 28 actions fit in fewer than 2048 characters but not in AWS's packed budget.
      const actions = Array.from({ length: 28 }, (_, i) => `ec2:DescribeThing${i}`);
      const Policy = JSON.stringify({
        Version: '2012-10-17',
        Statement: [{ Effect: 'Allow', Action: actions, Resource: '*' }],
      });
      expect(Policy.length).to.be.below(2048);
      expect(await refusal({ Policy })).to.deep.equal([
        'PackedPolicyTooLargeException', // the SDK's name for the wire code PackedPolicyTooLarge
        'Packed policy consumes 103% of allotted space, please use smaller policy.',
        400,
      ]);
      const fits = JSON.stringify({
        Version: '2012-10-17',
        Statement: [{ Effect: 'Allow', Action: actions.slice(1), Resource: '*' }],
      });
      expect((await assume({ Policy: fits })).answer.Credentials?.AccessKeyId).to.match(/^ASIA/); // 99%
      // Tags count against the same budget.
      const Tags = [{ Key: 'team', Value: 'b'.repeat(40) }];
      expect((await refusal({ Policy: fits, Tags }))[1]).to.equal(
        'Packed policy consumes 104% of allotted space, please use smaller policy.',
      );
    });
  });
});
