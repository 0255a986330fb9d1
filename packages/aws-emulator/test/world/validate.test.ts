import { expect } from 'chai';
import { InvalidWorldError, validateWorld } from '../../src/index.js';
import { testWorld } from '../support/world.js';

/** The message validateWorld refuses a world with. */
function refusal(world: unknown): string {
  try {
    validateWorld(world);
  } catch (error) {
    expect(error).to.be.instanceOf(InvalidWorldError);
    expect((error as InvalidWorldError).code).to.equal('ERR_KEYMASTER_AWS_EMULATOR_INVALID_WORLD');
    return (error as Error).message;
  }
  return expect.fail('the world was accepted');
}

const account = (extra: object) => ({ accounts: [{ id: '111111111111', ...extra }] });

describe('validateWorld', () => {
  it('accepts the test world and fills in defaults', () => {
    const world = validateWorld(testWorld());
    const longSessions = world.accounts[0]!.roles!.find((role) => role.name === 'long-sessions')!;
    expect(longSessions.trust![0]).to.deep.equal({ principal: '111111111111', actions: ['sts:AssumeRole'] });
    const readOnly = world.accounts[0]!.roles!.find((role) => role.name === 'read-only')!;
    expect(readOnly.maxSessionDuration).to.equal(3600);
  });

  it('names the field and the fix for each mistake', () => {
    expect(refusal({})).to.equal('accounts: must list at least one account');
    expect(refusal({ accounts: [{ id: 111111111111 }] })).to.equal(
      'accounts[0].id: must be a string (a 12-digit account ID in quotes)',
    );
    expect(refusal(account({ colour: 'blue' }))).to.equal(
      'accounts[0].colour: is not a known field (known: id, users, roles, policies, resources, oidcProviders)',
    );
    expect(
      refusal(
        account({
          users: [{ name: 'u', accessKeys: [{ accessKeyId: 'ASIAXXXXXXXXXXXXXXXX', secretAccessKey: 's' }] }],
        }),
      ),
    ).to.equal(
      'accounts[0].users[0].accessKeys[0].accessKeyId: "ASIAXXXXXXXXXXXXXXXX" is not valid: must be AKIA followed by 12-124 capital letters or digits',
    );
    expect(refusal(account({ roles: [{ name: 'r', maxSessionDuration: 50000 }] }))).to.equal(
      'accounts[0].roles[0].maxSessionDuration: must be an integer from 3600 to 43200, got 50000',
    );
    expect(refusal(account({ roles: [{ name: 'r', trust: [{ principal: 'alice' }] }] }))).to.match(
      /^accounts\[0\]\.roles\[0\]\.trust\[0\]\.principal: "alice" is not valid: must be a user, role or assumed-role ARN/,
    );
    expect(
      refusal(account({ roles: [{ name: 'r', trust: [{ principal: '*', actions: ['sts:AssumeRoleWithSAML'] }] }] })),
    ).to.equal('accounts[0].roles[0].trust[0].actions[0]: must be one of sts:AssumeRole, sts:TagSession');
    expect(refusal(account({ users: [{ name: 'u', allow: ['AssumeRole'] }] }))).to.match(
      /^accounts\[0\]\.users\[0\]\.allow\[0\]: "AssumeRole" is not valid/,
    );
  });

  it('refuses duplicates across the world', () => {
    const key = { accessKeyId: 'AKIAEXAMPLEDUPLICATE', secretAccessKey: 's' };
    const world = {
      accounts: [
        { id: '111111111111', users: [{ name: 'a', accessKeys: [key] }] },
        { id: '222222222222', users: [{ name: 'b', accessKeys: [key] }] },
      ],
    };
    expect(refusal(world)).to.equal(
      'accounts[1].users[0].accessKeys[0].accessKeyId: access key ID "AKIAEXAMPLEDUPLICATE" appears more than once; each must be unique',
    );
    expect(refusal(account({ roles: [{ name: 'r' }, { name: 'r' }] }))).to.contain('role "r" appears more than once');
  });

  it('checks policies: their documents, their account, and that attached ones exist', () => {
    const policy = (document: unknown) =>
      account({ policies: [{ arn: 'arn:aws:iam::111111111111:policy/P', document }] });
    expect(refusal(policy({ Statement: [{ Effect: 'Maybe', Action: '*', Resource: '*' }] }))).to.equal(
      'accounts[0].policies[0].document: Syntax errors in policy: Statement[0]: Effect must be "Allow" or "Deny"',
    );
    expect(
      refusal(
        policy({
          Statement: [
            { Effect: 'Allow', Action: '*', Resource: '*', Condition: { DateGreaterThan: { 'aws:CurrentTime': 'x' } } },
          ],
        }),
      ),
    ).to.match(/Condition\.DateGreaterThan\.aws:CurrentTime: operator 'DateGreaterThan' is not supported/);
    expect(
      refusal(account({ policies: [{ arn: 'arn:aws:iam::222222222222:policy/P', document: { Statement: [] } }] })),
    ).to.equal('accounts[0].policies[0].arn: must name this account (111111111111), not 222222222222');
    expect(refusal(account({ users: [{ name: 'u', policies: ['arn:aws:iam::111111111111:policy/Nope'] }] }))).to.equal(
      "accounts[0].users[0].policies[0]: no account's policies define arn:aws:iam::111111111111:policy/Nope",
    );
  });

  it('checks resources: a valid ARN in this account and a region, string tags within AWS limits', () => {
    const resource = (spec: object) => account({ resources: [spec] });
    expect(refusal(resource({ arn: 'arn:aws:ec2:us-west-2:222222222222:vpc/vpc-1' }))).to.equal(
      'accounts[0].resources[0].arn: must name this account (111111111111), not "222222222222"',
    );
    expect(refusal(resource({ arn: 'arn:aws:s3:::bucket' }))).to.contain('must name this account');
    expect(refusal(resource({ arn: 'arn:aws:ec2::111111111111:vpc/vpc-1' }))).to.equal(
      'accounts[0].resources[0].arn: must name a region (global resources are not emulated)',
    );
    expect(refusal(resource({ arn: 'arn:aws:ec2:us-west-2:111111111111:vpc/vpc-1', tags: { replicas: 3 } }))).to.equal(
      'accounts[0].resources[0].tags.replicas: must be a string (quote numbers and booleans)',
    );
    expect(
      refusal(resource({ arn: 'arn:aws:ec2:us-west-2:111111111111:vpc/vpc-1', tags: { ['k'.repeat(129)]: 'v' } })),
    ).to.contain('must be 1 to 128 characters long');
  });

  describe('OIDC providers and federated trust', () => {
    const ISSUER = 'https://oidc.example.com/id/ABC';
    const PROVIDER = 'arn:aws:iam::111111111111:oidc-provider/oidc.example.com/id/ABC';
    const provider = (extra: object = {}) => ({ url: ISSUER, clientIds: ['sts.amazonaws.com'], ...extra });
    const federated = (extra: object = {}) =>
      account({ oidcProviders: [provider()], roles: [{ name: 'r', trust: [{ federated: PROVIDER, ...extra }] }] });

    it('accepts a provider and a role trusting it, with conditions on its claims and the web identity action by default', () => {
      const world = validateWorld(
        federated({ conditions: { StringEquals: { 'oidc.example.com/id/ABC:sub': 'system:serviceaccount:a:b' } } }),
      );
      expect(world.accounts[0]!.oidcProviders).to.deep.equal([{ ...provider(), thumbprints: [] }]);
      expect(world.accounts[0]!.roles![0]!.trust![0]).to.deep.include({
        federated: PROVIDER,
        actions: ['sts:AssumeRoleWithWebIdentity'],
      });
    });

    it('names what is wrong with a provider', () => {
      const path = 'accounts[0].oidcProviders[0]';
      expect(refusal(account({ oidcProviders: [provider({ url: 'http://oidc.example.com' })] }))).to.equal(
        `${path}.url: "http://oidc.example.com" is not valid: must be an https URL of at most 255 characters`,
      );
      expect(refusal(account({ oidcProviders: [provider({ url: `${ISSUER}/` })] }))).to.match(
        /url: .* must be an https URL without query, fragment or trailing slash$/,
      );
      expect(refusal(account({ oidcProviders: [provider({ clientIds: [] })] }))).to.equal(
        `${path}.clientIds: must list 1 to 100 audiences`,
      );
      expect(refusal(account({ oidcProviders: [provider({ thumbprints: ['abc'] })] }))).to.equal(
        `${path}.thumbprints[0]: "abc" is not valid: must be 40 hexadecimal digits (a SHA-1 fingerprint)`,
      );
      expect(refusal(account({ oidcProviders: [provider({ jwks: { keys: [] }, discovery: {} })] }))).to.equal(
        `${path}: give either jwks (the keys) or discovery (where to fetch them), not both`,
      );
      expect(refusal(account({ oidcProviders: [provider({ jwks: { keys: [{ kty: 'EC' }] } })] }))).to.match(
        /jwks\.keys\[0\]: must be an RSA public key as a JWK/,
      );
      expect(refusal(account({ oidcProviders: [provider(), provider()] }))).to.equal(
        `accounts[0].oidcProviders[1].url: OIDC provider "${PROVIDER}" appears more than once; each must be unique`,
      );
    });

    it('names what is wrong with a trust statement', () => {
      const path = 'accounts[0].roles[0].trust[0]';
      expect(refusal(federated({ principal: '111111111111' }))).to.equal(
        `${path}: must name exactly one of principal (an AWS principal) and federated (an OIDC provider ARN)`,
      );
      expect(
        refusal(account({ roles: [{ name: 'r', trust: [{ federated: PROVIDER.replace('ABC', 'XYZ') }] }] })),
      ).to.equal(
        `${path}.federated: ${PROVIDER.replace('ABC', 'XYZ')} is not an OIDC provider of this account (its oidcProviders define none)`,
      );
      expect(refusal(federated({ actions: ['sts:AssumeRole'] }))).to.equal(
        `${path}.actions[0]: must be one of sts:AssumeRoleWithWebIdentity, sts:TagSession`,
      );
      expect(refusal(federated({ conditions: { StringSometimes: { k: 'v' } } }))).to.match(
        /conditions: Condition\.StringSometimes\.k: operator 'StringSometimes' is not supported/,
      );
      expect(refusal(federated({ externalId: 'abc-123' }))).to.equal(
        `${path}.externalId: is for principal statements only`,
      );
    });
  });
});
