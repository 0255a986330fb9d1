import { DescribeInstancesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { AssumeRoleCommand, GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { defaultSessionName } from '@keymaster/identity';
import { expect } from 'chai';
import { awsClients, MOTO_ACCOUNT, REGION } from './support/clients.js';
import { controllerIdentity, resolverFor, roleIdentity } from './support/identities.js';
import { withMoto } from './support/moto.js';
import { createUser, runInstances } from './support/resources.js';

const TENANT_ACCOUNT = '222222222222';
const HUB_ROLE = `arn:aws:iam::${MOTO_ACCOUNT}:role/keymaster-hub`;
const TENANT_ROLE = `arn:aws:iam::${TENANT_ACCOUNT}:role/tenant-b-admin`;
const EXTERNAL_ID = '7a5b816a-7743-4377-a382-2d695bf1f172';

describe('STS through @keymaster/identity against moto', () => {
  const holder = withMoto();

  it('GetCallerIdentity names the IAM user whose keys the controller holds', async () => {
    const { url } = holder.moto;
    const controller = await createUser(awsClients(url), 'keymaster-controller');
    const resolver = resolverFor(url, controller, [controllerIdentity(['tenant-a'])], ['tenant-a']);

    const session = await resolver.resolve({ namespace: 'tenant-a', region: REGION });

    expect(session.accountId).to.equal(MOTO_ACCOUNT);
    expect(session.principalArn).to.equal(`arn:aws:iam::${MOTO_ACCOUNT}:user/keymaster-controller`);
    expect(session.principalArn).to.equal(controller.arn);
  });

  it('a two-role chain: the controller assumes the hub, the hub the tenant role of another account with its ExternalId', async () => {
    const { url } = holder.moto;
    const controller = await createUser(awsClients(url), 'keymaster-controller');
    const identities = [
      controllerIdentity(['tenant-b']),
      roleIdentity('keymaster-hub', ['tenant-b'], { roleARN: HUB_ROLE }),
      roleIdentity('tenant-b', ['tenant-b'], {
        roleARN: TENANT_ROLE,
        externalID: EXTERNAL_ID,
        sourceIdentityRef: { kind: 'AWSClusterRoleIdentity', name: 'keymaster-hub' },
      }),
    ];
    const resolver = resolverFor(url, controller, identities, ['tenant-b']);

    const session = await resolver.resolve({
      namespace: 'tenant-b',
      identityRef: { kind: 'AWSClusterRoleIdentity', name: 'tenant-b' },
      region: REGION,
    });

    const sessionArn = `arn:aws:sts::${TENANT_ACCOUNT}:assumed-role/tenant-b-admin/${defaultSessionName('tenant-b')}`;
    expect(session.accountId).to.equal(TENANT_ACCOUNT);
    expect(session.principalArn).to.equal(sessionArn);
    expect(session.chain.map((link) => link.name)).to.deep.equal(['tenant-b', 'keymaster-hub', 'default']);
    // The session's clients act as the tenant's role, in the tenant's account.
    const caller = await session.client(STSClient).send(new GetCallerIdentityCommand({}));
    expect(caller).to.include({ Account: TENANT_ACCOUNT, Arn: sessionArn });
    const credentials = await session.credentials();
    expect(credentials.accessKeyId).to.match(/^ASIA/);
    expect(credentials.expiration!.getTime()).to.be.greaterThan(Date.now());
  });

  it("a session's EC2 client sees the instances of the role's account, not the controller's", async () => {
    const { url } = holder.moto;
    const controller = await createUser(awsClients(url), 'keymaster-controller');
    const resolver = resolverFor(
      url,
      controller,
      [controllerIdentity(['tenant-b']), roleIdentity('tenant-b', ['tenant-b'], { roleARN: TENANT_ROLE })],
      ['tenant-b'],
    );
    const session = await resolver.resolve({
      namespace: 'tenant-b',
      identityRef: { kind: 'AWSClusterRoleIdentity', name: 'tenant-b' },
      region: REGION,
    });
    const [controllerInstance] = await runInstances(awsClients(url, controller), 1);
    const tenantClients = awsClients(url, await session.credentials());
    const [tenantInstance] = await runInstances(tenantClients, 1);

    const { Reservations } = await session.client(EC2Client).send(new DescribeInstancesCommand({}));

    const seen = Reservations!.flatMap(({ OwnerId, Instances }) =>
      Instances!.map(({ InstanceId }) => `arn:aws:ec2:${REGION}:${OwnerId}:instance/${InstanceId}`),
    );
    expect(seen).to.deep.equal([tenantInstance]);
    expect(controllerInstance).to.include(`:${MOTO_ACCOUNT}:`);
  });

  it('AssumeRole answers the duration asked for, and the SDK reads every field of the answer', async () => {
    const { url } = holder.moto;
    const controller = await createUser(awsClients(url), 'keymaster-controller');
    const before = Date.now();

    const answer = await awsClients(url, controller).sts.send(
      new AssumeRoleCommand({
        RoleArn: TENANT_ROLE,
        RoleSessionName: 'keymaster-tenant-b',
        ExternalId: EXTERNAL_ID,
        DurationSeconds: 900,
      }),
    );

    expect(answer.Credentials!.AccessKeyId).to.match(/^ASIA/);
    expect(answer.Credentials!.SecretAccessKey).to.be.a('string').and.not.be.empty;
    expect(answer.Credentials!.SessionToken).to.be.a('string').and.not.be.empty;
    const lifetime = answer.Credentials!.Expiration!.getTime() - before;
    expect(lifetime).to.be.within(890_000, 910_000);
    expect(answer.AssumedRoleUser).to.deep.include({
      Arn: `arn:aws:sts::${TENANT_ACCOUNT}:assumed-role/tenant-b-admin/keymaster-tenant-b`,
    });
    expect(answer.AssumedRoleUser!.AssumedRoleId).to.match(/^AROA[A-Z0-9]+:keymaster-tenant-b$/);
  });
});
