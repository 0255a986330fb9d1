import { CreateTagsCommand } from '@aws-sdk/client-ec2';
import { GetResourcesCommand } from '@aws-sdk/client-resource-groups-tagging-api';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { expect } from 'chai';
import { assumeRole, ec2Client, failureOf, stsClient, taggingClient, type Keys } from '../support/clients.js';
import { withEmulator } from '../support/emulator.js';
import { presignedCallerIdentity, signer } from '../support/signer.js';
import { CONTROLLER, EXTERNAL_ID, REGION, ROLES } from '../support/world.js';

const UNKNOWN: Keys = { accessKeyId: 'AKIAUNKNOWNUNKNOWN00', secretAccessKey: 'whatever-secret-0123456789' };
const WRONG_SECRET: Keys = { accessKeyId: CONTROLLER.accessKeyId, secretAccessKey: 'not-the-secret' };
const ADMIN = { RoleArn: ROLES.tenantAdmin, RoleSessionName: 'sigv4', ExternalId: EXTERNAL_ID };

/** The error name each service's SDK client surfaces for a request signed with these keys. */
async function errorNames(url: string, keys: Keys): Promise<string[]> {
  const errors = await Promise.all([
    failureOf(stsClient(url, keys).send(new GetCallerIdentityCommand({}))),
    failureOf(taggingClient(url, keys).send(new GetResourcesCommand({}))),
    failureOf(
      ec2Client(url, keys).send(
        new CreateTagsCommand({ Resources: ['i-0123456789abcdef0'], Tags: [{ Key: 'a', Value: 'b' }] }),
      ),
    ),
  ]);
  return errors.map((error) => error.name);
}

describe('SigV4 verification', () => {
  const context = withEmulator();
  const url = () => context.emulator.url;

  it('refuses an unknown access key as each service does', async () => {
    expect(await errorNames(url(), UNKNOWN)).to.deep.equal([
      'InvalidClientTokenId',
      'UnrecognizedClientException',
      'AuthFailure',
    ]);
  });

  it('refuses a wrong secret as each service does', async () => {
    expect(await errorNames(url(), WRONG_SECRET)).to.deep.equal([
      'SignatureDoesNotMatch',
      'InvalidSignatureException',
      'AuthFailure',
    ]);
  });

  it('refuses session keys without their session token, or with another session’s', async () => {
    const session = await assumeRole(url(), CONTROLLER, ADMIN);
    const other = await assumeRole(url(), CONTROLLER, { ...ADMIN, RoleSessionName: 'other' });
    const bare = { accessKeyId: session.accessKeyId, secretAccessKey: session.secretAccessKey };
    expect((await failureOf(stsClient(url(), bare).send(new GetCallerIdentityCommand({})))).name).to.equal(
      'InvalidClientTokenId',
    );
    const swapped = { ...bare, sessionToken: other.sessionToken! };
    expect((await failureOf(stsClient(url(), swapped).send(new GetCallerIdentityCommand({})))).name).to.equal(
      'InvalidClientTokenId',
    );
  });

  it('refuses a long-term key sent with a session token', async () => {
    const keys = { ...CONTROLLER, sessionToken: 'made-up-token' };
    expect((await failureOf(stsClient(url(), keys).send(new GetCallerIdentityCommand({})))).name).to.equal(
      'InvalidClientTokenId',
    );
  });

  it('refuses a body changed after signing', async () => {
    const client = stsClient(url(), CONTROLLER);
    type Next = (args: { request: unknown }) => Promise<unknown>;
    const tamper =
      (next: Next): Next =>
      (args) => {
        const request = args.request as { body: string };
        request.body = request.body.replace('Version=2011-06-15', 'Version=2011-06-16');
        return next(args);
      };
    type Middleware = Parameters<typeof client.middlewareStack.addRelativeTo>[0];
    client.middlewareStack.addRelativeTo(tamper as unknown as Middleware, {
      relation: 'after',
      toMiddleware: 'httpSigningMiddleware',
      name: 'tamper',
    });
    expect((await failureOf(client.send(new GetCallerIdentityCommand({})))).name).to.equal('SignatureDoesNotMatch');
  });

  it('answers an unsigned request with MissingAuthenticationToken', async () => {
    const response = await fetch(`${url()}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'Action=GetCallerIdentity&Version=2011-06-15',
    });
    expect(response.status).to.equal(403);
    expect(await response.text()).to.contain('<Code>MissingAuthenticationToken</Code>');
  });

  it('refuses a signature scoped to another service', async () => {
    const { hostname, port } = new URL(url());
    const signed = await signer(CONTROLLER, 'ec2').sign({
      method: 'POST',
      protocol: 'http:',
      hostname,
      port: Number(port),
      path: '/',
      headers: { host: `${hostname}:${port}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'Action=GetCallerIdentity&Version=2011-06-15',
    });
    const response = await fetch(`${url()}/`, { method: 'POST', headers: signed.headers, body: signed.body as string });
    expect(response.status).to.equal(403);
    expect(await response.text()).to.contain("Credential should be scoped to correct service: 'sts'.");
  });

  describe('presigned URLs', () => {
    it('accepts a presigned GetCallerIdentity', async () => {
      const response = await fetch(await presignedCallerIdentity(url(), CONTROLLER, { expiresIn: 60 }));
      expect(response.status).to.equal(200);
      expect(await response.text()).to.contain(`<Arn>${CONTROLLER.arn}</Arn>`);
    });

    it('accepts a presigned URL of a session, its token in the query', async () => {
      const session = await assumeRole(url(), CONTROLLER, ADMIN);
      const response = await fetch(await presignedCallerIdentity(url(), session, { expiresIn: 60 }));
      expect(await response.text()).to.contain('assumed-role/tenant-b-admin/sigv4');
    });

    it('refuses a presigned URL past its X-Amz-Expires', async () => {
      const signingDate = new Date(Date.now() - 120_000);
      const response = await fetch(await presignedCallerIdentity(url(), CONTROLLER, { expiresIn: 60, signingDate }));
      expect(response.status).to.equal(403);
      const body = await response.text();
      expect(body).to.contain('<Code>SignatureDoesNotMatch</Code>');
      expect(body).to.contain('Signature expired');
    });

    it('refuses a presigned URL whose query was changed', async () => {
      const presigned = await presignedCallerIdentity(url(), CONTROLLER, { expiresIn: 60 });
      const response = await fetch(presigned.replace('Version=2011-06-15', 'Version=2011-06-15&Extra=1'));
      expect(await response.text()).to.contain('<Code>SignatureDoesNotMatch</Code>');
    });
  });

  describe('signing time', () => {
    const clientTenMinutesSlow = () =>
      new STSClient({
        endpoint: url(),
        region: REGION,
        credentials: CONTROLLER,
        maxAttempts: 1,
        systemClockOffset: -600_000,
      });

    it('refuses a request signed more than 5 minutes off the wall clock', async () => {
      const client = clientTenMinutesSlow();
      const error = await failureOf(client.send(new GetCallerIdentityCommand({})));
      expect(error.name).to.equal('SignatureDoesNotMatch');
      expect(error.message).to.match(/^Signature expired: \d{8}T\d{6}Z is now earlier than/);
    });

    it("lets the SDK correct its clock from the response's Date header (the wall clock)", async () => {
      const client = clientTenMinutesSlow();
      context.emulator.clock.advance(86400);
      await failureOf(client.send(new GetCallerIdentityCommand({})));
      expect(Math.abs(client.config.systemClockOffset)).to.be.below(60_000);
      const identity = await client.send(new GetCallerIdentityCommand({}));
      expect(identity.Arn).to.equal(CONTROLLER.arn);
    });

    it('keeps accepting wall-clock signatures after the emulator clock moved a day ahead', async () => {
      context.emulator.clock.advance(86400);
      const identity = await stsClient(url(), CONTROLLER).send(new GetCallerIdentityCommand({}));
      expect(identity.Arn).to.equal(CONTROLLER.arn);
    });
  });
});
