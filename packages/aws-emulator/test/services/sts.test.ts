import { EC2Client, CreateTagsCommand, DeleteTagsCommand } from '@aws-sdk/client-ec2';
import {
  GetResourcesCommand,
  ResourceGroupsTaggingAPIClient,
  TagResourcesCommand,
} from '@aws-sdk/client-resource-groups-tagging-api';
import { AssumeRoleCommand, GetCallerIdentityCommand } from '@aws-sdk/client-sts';
import { fromTemporaryCredentials } from '@aws-sdk/credential-providers';
import { expect } from 'chai';
import { assumeRole, ec2Client, failureOf, stsClient, taggingClient, type Keys } from '../support/clients.js';
import { withEmulator } from '../support/emulator.js';
import { ACCOUNT, AUDITOR, CONTROLLER, EXTERNAL_ID, INSTANCE, REGION, ROLES, STRANGER } from '../support/world.js';

const ADMIN = { RoleArn: ROLES.tenantAdmin, RoleSessionName: 'cluster-prod-1', ExternalId: EXTERNAL_ID };

describe('STS', () => {
  const context = withEmulator();
  const url = () => context.emulator.url;

  describe('GetCallerIdentity', () => {
    it('names a user by ARN, account and AIDA user ID', async () => {
      const identity = await stsClient(url(), CONTROLLER).send(new GetCallerIdentityCommand({}));
      expect(identity.Arn).to.equal(CONTROLLER.arn);
      expect(identity.Account).to.equal(ACCOUNT);
      expect(identity.UserId).to.match(/^AIDA[A-Z2-7]{17}$/);
    });

    it('needs no permission: a user without policies may ask who it is', async () => {
      const identity = await stsClient(url(), AUDITOR).send(new GetCallerIdentityCommand({}));
      expect(identity.Arn).to.equal(AUDITOR.arn);
    });
  });

  describe('AssumeRole', () => {
    it('issues ASIA keys with a session token, expiring after the default hour of the emulator clock', async () => {
      context.emulator.clock.advance(86400);
      const before = context.emulator.clock.nowMs();
      const result = await stsClient(url(), CONTROLLER).send(new AssumeRoleCommand(ADMIN));
      expect(result.Credentials!.AccessKeyId).to.match(/^ASIA[A-Z2-7]{16}$/);
      expect(result.Credentials!.SessionToken).to.have.length.above(100);
      const expiration = result.Credentials!.Expiration!.getTime();
      expect(expiration).to.be.within(before + 3600_000 - 1000, context.emulator.clock.nowMs() + 3600_000);
      expect(result.AssumedRoleUser).to.deep.include({
        Arn: `arn:aws:sts::${ACCOUNT}:assumed-role/tenant-b-admin/cluster-prod-1`,
      });
      expect(result.AssumedRoleUser!.AssumedRoleId).to.match(/^AROA[A-Z2-7]{17}:cluster-prod-1$/);
    });

    it('lets the session act as the role', async () => {
      const session = await assumeRole(url(), CONTROLLER, ADMIN);
      const identity = await stsClient(url(), session).send(new GetCallerIdentityCommand({}));
      expect(identity.Arn).to.equal(`arn:aws:sts::${ACCOUNT}:assumed-role/tenant-b-admin/cluster-prod-1`);
    });

    describe('trust', () => {
      it('refuses a missing ExternalId with AccessDenied naming the caller and the role', async () => {
        const error = await failureOf(assumeRole(url(), CONTROLLER, { ...ADMIN, ExternalId: undefined }));
        expect(error.name).to.equal('AccessDenied');
        expect(error.message).to.equal(
          `User: ${CONTROLLER.arn} is not authorized to perform: sts:AssumeRole on resource: ${ROLES.tenantAdmin}`,
        );
        expect(error.$metadata!.httpStatusCode).to.equal(403);
      });

      it('refuses a wrong ExternalId', async () => {
        const error = await failureOf(assumeRole(url(), CONTROLLER, { ...ADMIN, ExternalId: 'not-the-external-id' }));
        expect(error.name).to.equal('AccessDenied');
      });

      it('refuses a principal the trust policy does not name, even one allowed every action', async () => {
        const error = await failureOf(assumeRole(url(), STRANGER, ADMIN));
        expect(error.name).to.equal('AccessDenied');
        expect(error.message).to.contain(STRANGER.arn);
      });

      it('refuses a role that does not exist with AccessDenied, as STS does', async () => {
        const error = await failureOf(
          assumeRole(url(), CONTROLLER, { RoleArn: `arn:aws:iam::${ACCOUNT}:role/nope`, RoleSessionName: 'x1' }),
        );
        expect(error.name).to.equal('AccessDenied');
      });

      it('needs no identity permission when the trust policy names the caller', async () => {
        const session = await assumeRole(url(), AUDITOR, { RoleArn: ROLES.auditByName, RoleSessionName: 'audit' });
        expect(session.accessKeyId).to.match(/^ASIA/);
      });

      it("needs the caller's own sts:AssumeRole permission when the trust policy names the account", async () => {
        const error = await failureOf(
          assumeRole(url(), AUDITOR, { RoleArn: ROLES.auditByAccount, RoleSessionName: 'a1' }),
        );
        expect(error.name).to.equal('AccessDenied');
        expect(error.message).to.equal(
          `User: ${AUDITOR.arn} is not authorized to perform: sts:AssumeRole on resource: ${ROLES.auditByAccount} because no identity-based policy allows the sts:AssumeRole action`,
        );
        const session = await assumeRole(url(), CONTROLLER, { RoleArn: ROLES.auditByAccount, RoleSessionName: 'a1' });
        expect(session.accessKeyId).to.match(/^ASIA/);
      });

      it('accepts a role in another account that trusts the caller’s account root', async () => {
        const session = await assumeRole(url(), CONTROLLER, { RoleArn: ROLES.crossAccount, RoleSessionName: 'x-acct' });
        const identity = await stsClient(url(), session).send(new GetCallerIdentityCommand({}));
        expect(identity.Account).to.equal('222222222222');
      });

      it('allows session tags only when the trust policy allows sts:TagSession', async () => {
        const tags = [{ Key: 'team', Value: 'b' }];
        const error = await failureOf(
          assumeRole(url(), CONTROLLER, { RoleArn: ROLES.longSessions, RoleSessionName: 'tagged', Tags: tags }),
        );
        expect(error.name).to.equal('AccessDenied');
        const session = await assumeRole(url(), CONTROLLER, { ...ADMIN, Tags: tags });
        expect(session.accessKeyId).to.match(/^ASIA/);
      });
    });

    describe('durations', () => {
      it("refuses more than the role's MaxSessionDuration", async () => {
        const error = await failureOf(assumeRole(url(), CONTROLLER, { ...ADMIN, DurationSeconds: 7200 }));
        expect(error.name).to.equal('ValidationError');
        expect(error.message).to.equal(
          'The requested DurationSeconds exceeds the MaxSessionDuration set for this role.',
        );
      });

      it('grants up to 12 hours when the role allows them', async () => {
        const result = await stsClient(url(), CONTROLLER).send(
          new AssumeRoleCommand({ RoleArn: ROLES.longSessions, RoleSessionName: 'long', DurationSeconds: 43200 }),
        );
        const lifetime = result.Credentials!.Expiration!.getTime() - context.emulator.clock.nowMs();
        expect(lifetime).to.be.within(43200_000 - 5000, 43200_000);
      });

      it('caps role chaining at one hour, whatever the role allows', async () => {
        const first = await assumeRole(url(), CONTROLLER, { RoleArn: ROLES.longSessions, RoleSessionName: 'first' });
        const error = await failureOf(
          assumeRole(url(), first, { RoleArn: ROLES.longSessions, RoleSessionName: 'second', DurationSeconds: 7200 }),
        );
        expect(error.name).to.equal('ValidationError');
        expect(error.message).to.equal(
          'The requested DurationSeconds exceeds the 1 hour session limit for roles assumed by role chaining.',
        );
        const chained = await assumeRole(url(), first, {
          RoleArn: ROLES.longSessions,
          RoleSessionName: 'second',
          DurationSeconds: 3600,
        });
        const identity = await stsClient(url(), chained).send(new GetCallerIdentityCommand({}));
        expect(identity.Arn).to.equal(`arn:aws:sts::${ACCOUNT}:assumed-role/long-sessions/second`);
      });

      it('refuses durations under 15 minutes', async () => {
        const error = await failureOf(assumeRole(url(), CONTROLLER, { ...ADMIN, DurationSeconds: 899 }));
        expect(error.name).to.equal('ValidationError');
        expect(error.message).to.equal(
          "1 validation error detected: Value '899' at 'durationSeconds' failed to satisfy constraint: Member must have value greater than or equal to 900",
        );
      });
    });

    describe('parameters', () => {
      it('reports every constraint a session name breaks', async () => {
        const error = await failureOf(assumeRole(url(), CONTROLLER, { ...ADMIN, RoleSessionName: 'a b'.repeat(30) }));
        expect(error.name).to.equal('ValidationError');
        expect(error.message).to.match(/^2 validation errors detected: /);
        expect(error.message).to.contain('Member must have length less than or equal to 64');
        expect(error.message).to.contain('Member must satisfy regular expression pattern: [\\w+=,.@-]*');
      });

      it('refuses more than 50 session tags, showing them as AWS shows structures', async () => {
        const Tags = Array.from({ length: 51 }, (_, i) => ({ Key: `k${i}`, Value: 'v' }));
        const error = await failureOf(assumeRole(url(), CONTROLLER, { ...ADMIN, Tags }));
        expect(error.name).to.equal('ValidationError');
        expect(error.message).to.contain("Value '[{Key=k0, Value=v}, {Key=k1, Value=v}, ");
        expect(error.message).to.contain(
          "at 'tags' failed to satisfy constraint: Member must have length less than or equal to 50",
        );
      });

      it('refuses an ExternalId with characters outside its pattern', async () => {
        const error = await failureOf(assumeRole(url(), CONTROLLER, { ...ADMIN, ExternalId: 'has spaces' }));
        expect(error.name).to.equal('ValidationError');
        expect(error.message).to.contain("at 'externalId'");
      });

      it('refuses an ARN that names no role', async () => {
        const error = await failureOf(
          assumeRole(url(), CONTROLLER, { RoleArn: `arn:aws:iam::${ACCOUNT}:user/keymaster`, RoleSessionName: 'x1' }),
        );
        expect(error.name).to.equal('ValidationError');
      });

      it('refuses a session policy that is not valid JSON as MalformedPolicyDocument', async () => {
        const error = await failureOf(assumeRole(url(), CONTROLLER, { ...ADMIN, Policy: '{"Statement": [' }));
        expect(error.name).to.equal('MalformedPolicyDocumentException');
      });

      it('refuses an unknown managed session policy', async () => {
        const PolicyArns = [{ arn: `arn:aws:iam::${ACCOUNT}:policy/Missing` }];
        const error = await failureOf(assumeRole(url(), CONTROLLER, { ...ADMIN, PolicyArns }));
        expect(error.name).to.equal('MalformedPolicyDocumentException');
      });
    });
  });

  describe('session policies', () => {
    it('narrow the session to the intersection with the role: inline policy', async () => {
      const Policy = JSON.stringify({
        Version: '2012-10-17',
        Statement: [{ Effect: 'Allow', Action: 'tag:GetResources', Resource: '*' }],
      });
      const session = await assumeRole(url(), CONTROLLER, { ...ADMIN, Policy });
      const tagging = taggingClient(url(), session);
      const page = await tagging.send(new GetResourcesCommand({}));
      expect(page.ResourceTagMappingList).to.not.be.empty;
      const error = await failureOf(
        tagging.send(new TagResourcesCommand({ ResourceARNList: [INSTANCE], Tags: { a: 'b' } })),
      );
      expect(error.name).to.equal('AccessDeniedException');
      expect(error.message).to.contain('because no session policy allows the tag:TagResources action');
    });

    it('narrow the session to the intersection with the role: managed policy ARNs', async () => {
      const session = await assumeRole(url(), CONTROLLER, {
        ...ADMIN,
        PolicyArns: [{ arn: `arn:aws:iam::${ACCOUNT}:policy/TagOnly` }],
      });
      const ec2 = ec2Client(url(), session);
      await ec2.send(
        new CreateTagsCommand({ Resources: ['i-0123456789abcdef0'], Tags: [{ Key: 'team', Value: 'b' }] }),
      );
      const error = await failureOf(
        ec2.send(new DeleteTagsCommand({ Resources: ['i-0123456789abcdef0'], Tags: [{ Key: 'team' }] })),
      );
      expect(error.name).to.equal('UnauthorizedOperation');
    });

    it('never widen the role: a session policy allowing everything grants nothing the role lacks', async () => {
      const Policy = JSON.stringify({
        Version: '2012-10-17',
        Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }],
      });
      const session = await assumeRole(url(), CONTROLLER, {
        RoleArn: ROLES.auditByAccount,
        RoleSessionName: 'wide',
        Policy,
      });
      const error = await failureOf(
        taggingClient(url(), session).send(new TagResourcesCommand({ ResourceARNList: [INSTANCE], Tags: { a: 'b' } })),
      );
      expect(error.name).to.equal('AccessDeniedException');
      expect(error.message).to.contain('because no identity-based policy allows the tag:TagResources action');
    });

    it('carry transitive session tags into chained sessions, where conditions can read them', async () => {
      const onlyTeamB = JSON.stringify({
        Version: '2012-10-17',
        Statement: [
          {
            Effect: 'Allow',
            Action: 'tag:GetResources',
            Resource: '*',
            Condition: { StringEquals: { 'aws:PrincipalTag/team': 'b' } },
          },
        ],
      });
      const tagged = await assumeRole(url(), CONTROLLER, {
        ...ADMIN,
        Tags: [
          { Key: 'team', Value: 'b' },
          { Key: 'cost-center', Value: '42' },
        ],
        TransitiveTagKeys: ['team'],
      });
      const chained = await assumeRole(url(), tagged, {
        RoleArn: ROLES.readOnly,
        RoleSessionName: 'chained',
        Policy: onlyTeamB,
      });
      const page = await taggingClient(url(), chained).send(new GetResourcesCommand({}));
      expect(page.ResourceTagMappingList).to.not.be.empty;

      const onlyCostCenter = onlyTeamB
        .replace('aws:PrincipalTag/team', 'aws:PrincipalTag/cost-center')
        .replace('"b"', '"42"');
      const untagged = await assumeRole(url(), tagged, {
        RoleArn: ROLES.readOnly,
        RoleSessionName: 'other',
        Policy: onlyCostCenter,
      });
      const error = await failureOf(taggingClient(url(), untagged).send(new GetResourcesCommand({})));
      expect(error.name).to.equal('AccessDeniedException');
    });
  });

  describe('expiry on the emulator clock', () => {
    async function expiredSession(): Promise<Keys> {
      const session = await assumeRole(url(), CONTROLLER, ADMIN);
      context.emulator.clock.advance(3601);
      return session;
    }

    it('answers ExpiredToken on STS once the session has expired', async () => {
      const error = await failureOf(stsClient(url(), await expiredSession()).send(new GetCallerIdentityCommand({})));
      expect(error.name).to.equal('ExpiredToken');
      expect(error.message).to.equal('The security token included in the request is expired');
    });

    it('answers ExpiredTokenException on the tagging API and RequestExpired on EC2', async () => {
      const session = await expiredSession();
      const tagging = await failureOf(taggingClient(url(), session).send(new GetResourcesCommand({})));
      expect(tagging.name).to.equal('ExpiredTokenException');
      const ec2 = await failureOf(
        new EC2Client({ endpoint: url(), region: REGION, credentials: session, maxAttempts: 1 }).send(
          new CreateTagsCommand({ Resources: ['i-0123456789abcdef0'], Tags: [{ Key: 'a', Value: 'b' }] }),
        ),
      );
      expect(ec2.name).to.equal('RequestExpired');
    });

    it('keeps a session valid until its Expiration', async () => {
      const session = await assumeRole(url(), CONTROLLER, ADMIN);
      context.emulator.clock.advance(3590);
      const identity = await stsClient(url(), session).send(new GetCallerIdentityCommand({}));
      expect(identity.Arn).to.contain('assumed-role/tenant-b-admin');
    });
  });

  describe('with @aws-sdk/credential-providers', () => {
    it('fromTemporaryCredentials assumes the role once for many calls', async () => {
      const credentials = fromTemporaryCredentials({
        masterCredentials: CONTROLLER,
        params: { RoleArn: ROLES.tenantAdmin, RoleSessionName: 'provider', ExternalId: EXTERNAL_ID },
        clientConfig: { endpoint: url(), region: REGION },
      });
      const client = new ResourceGroupsTaggingAPIClient({ endpoint: url(), region: REGION, credentials });
      for (let i = 0; i < 3; i++) await client.send(new GetResourcesCommand({}));
      const calls = context.emulator.calls.summary();
      expect(calls.byAction).to.deep.equal({ 'sts:AssumeRole': 1, 'tag:GetResources': 3 });
      expect(calls.byCaller[`arn:aws:sts::${ACCOUNT}:assumed-role/tenant-b-admin/provider`]).to.deep.equal({
        'tag:GetResources': 3,
      });
    });
  });
});
