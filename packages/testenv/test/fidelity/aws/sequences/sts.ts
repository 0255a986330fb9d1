import { DescribeTagsCommand } from '@aws-sdk/client-ec2';
import { GetResourcesCommand } from '@aws-sdk/client-resource-groups-tagging-api';
import { AssumeRoleCommand, GetCallerIdentityCommand, type AssumeRoleCommandInput } from '@aws-sdk/client-sts';
import type { Keys } from '../../../moto/support/clients.js';
import type { Run } from '../run.js';
import { EXTERNAL_ID, ROLES, TENANT_ACCOUNT } from '../sides.js';
import type { Sequence } from './sequence.js';

const SESSION = 'keymaster-tenant-b';
const ONLY_GET_RESOURCES = JSON.stringify({
  Version: '2012-10-17',
  Statement: [{ Effect: 'Allow', Action: 'tag:GetResources', Resource: '*' }],
});
/** No account defines this managed policy. */
const MISSING_POLICY = `arn:aws:iam::${TENANT_ACCOUNT}:policy/no-such-policy`;

/**
 * AssumeRole as the controller (or `keys`), recorded; the session's keys when it succeeded.
 * PackedPolicySize is recorded only by the sequences about it (`packed`): the first, and those that
 * pass session policies or tags.
 */
async function assumeRole(
  run: Run,
  step: string,
  input: Partial<AssumeRoleCommandInput>,
  keys?: Keys,
  packed = false,
): Promise<Keys | undefined> {
  const answer = await run.call(
    step,
    () =>
      run.clients(keys).sts.send(new AssumeRoleCommand({ RoleArn: ROLES.plain, RoleSessionName: SESSION, ...input })),
    packed ? [] : ['PackedPolicySize'],
  );
  const credentials = answer?.Credentials;
  return (
    credentials && {
      accessKeyId: credentials.AccessKeyId!,
      secretAccessKey: credentials.SecretAccessKey!,
      sessionToken: credentials.SessionToken!,
    }
  );
}

const whoAmI = (run: Run, step: string, keys?: Keys) =>
  run.call(step, () => run.clients(keys).sts.send(new GetCallerIdentityCommand({})));

/** A sequence that sends one AssumeRole with these parameters (on top of the plain role and a session name). */
const assumeOnce = (name: string, input: Partial<AssumeRoleCommandInput>, packed = false): Sequence => ({
  name,
  run: async (run) => {
    await assumeRole(run, 'AssumeRole', input, undefined, packed);
  },
});

export const stsSequences: Sequence[] = [
  { name: 'sts/get-caller-identity', run: (run) => whoAmI(run, 'GetCallerIdentity').then(() => undefined) },
  {
    name: 'sts/assume-role-then-act-as-the-session',
    run: async (run) => {
      const session = await assumeRole(run, 'AssumeRole', {}, undefined, true);
      await whoAmI(run, 'GetCallerIdentity as the session', session);
    },
  },
  assumeOnce('sts/assume-role-with-external-id', { RoleArn: ROLES.guarded, ExternalId: EXTERNAL_ID }),
  assumeOnce('sts/assume-role-wrong-external-id', { RoleArn: ROLES.guarded, ExternalId: 'not-the-external-id' }),
  assumeOnce('sts/assume-role-without-required-external-id', { RoleArn: ROLES.guarded }),
  assumeOnce('sts/assume-role-of-missing-role', { RoleArn: ROLES.missing }),
  assumeOnce('sts/assume-role-duration-900', { DurationSeconds: 900 }),
  assumeOnce('sts/assume-role-duration-below-900', { DurationSeconds: 899 }),
  assumeOnce('sts/assume-role-duration-over-role-maximum', { DurationSeconds: 7200 }),
  assumeOnce('sts/assume-role-duration-over-43200', { DurationSeconds: 43201 }),
  assumeOnce('sts/assume-role-session-name-too-short', { RoleSessionName: 'k' }),
  assumeOnce('sts/assume-role-session-name-too-long', { RoleSessionName: 'k'.repeat(65) }),
  assumeOnce('sts/assume-role-session-name-bad-characters', { RoleSessionName: 'keymaster tenant/b' }),
  assumeOnce('sts/assume-role-arn-not-a-role', { RoleArn: 'arn:aws:iam::222222222222:user/tenant-b' }),
  assumeOnce('sts/assume-role-external-id-too-short', { RoleArn: ROLES.guarded, ExternalId: 'x' }),
  assumeOnce(
    'sts/assume-role-session-tags',
    { Tags: [{ Key: 'tenant', Value: 'tenant-b' }], TransitiveTagKeys: ['tenant'] },
    true,
  ),
  assumeOnce('sts/assume-role-aws-session-tag', { Tags: [{ Key: 'aws:tenant', Value: 'tenant-b' }] }),
  assumeOnce('sts/assume-role-session-policy', { Policy: ONLY_GET_RESOURCES }, true),
  assumeOnce('sts/assume-role-malformed-session-policy', { Policy: '{"Version": "2012-10-17", "Statement": ' }),
  {
    name: 'sts/session-policy-narrows-the-session',
    run: async (run) => {
      const session = await assumeRole(run, 'AssumeRole with a session policy of tag:GetResources', {
        Policy: ONLY_GET_RESOURCES,
      });
      // Its last PaginationToken is another sequence's business (moto leaves it out).
      await run.call(
        'GetResources as the session',
        () => run.clients(session).tagging.send(new GetResourcesCommand({})),
        ['PaginationToken'],
      );
      await run.call('DescribeTags as the session', () => run.clients(session).ec2.send(new DescribeTagsCommand({})));
    },
  },
  assumeOnce('sts/assume-role-unknown-policy-arn', { PolicyArns: [{ arn: MISSING_POLICY }] }),
  assumeOnce('sts/assume-role-eleven-policy-arns', {
    PolicyArns: Array.from({ length: 11 }, () => ({ arn: MISSING_POLICY })),
  }),
  assumeOnce('sts/assume-role-packed-policy-too-large', {
    // 1,000 characters, well under the plaintext limit of 2048, but 40 actions: more than the packed budget.
    Policy: JSON.stringify({
      Version: '2012-10-17',
      Statement: [
        { Effect: 'Allow', Action: Array.from({ length: 40 }, (_, i) => `ec2:DescribeThing${i}`), Resource: '*' },
      ],
    }),
  }),
  {
    name: 'sts/role-chain',
    run: async (run) => {
      const first = await assumeRole(run, 'AssumeRole of the first role', {});
      const second = await assumeRole(run, 'AssumeRole of the second, as the first', { RoleArn: ROLES.chained }, first);
      await whoAmI(run, 'GetCallerIdentity as the second', second);
    },
  },
  {
    name: 'sts/role-chain-over-one-hour',
    run: async (run) => {
      const first = await assumeRole(run, 'AssumeRole of the first role', {});
      await assumeRole(
        run,
        'AssumeRole of the second for 2 hours',
        { RoleArn: ROLES.chained, DurationSeconds: 7200 },
        first,
      );
    },
  },
];
