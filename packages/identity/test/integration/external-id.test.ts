import { expect } from 'chai';
import type { AWSClusterRoleIdentitySpec } from '@keymaster/api';
import type { IdentityError } from '../../src/index.js';
import { startHarness, type Harness } from './harness.js';
import { EXTERNAL_ID, EXTERNAL_ID_ROTATED, TENANT_B } from './world.js';

const ROLE = 'AWSClusterRoleIdentity' as const;
const TENANT_B_ROLE = `arn:aws:iam::${TENANT_B}:role/tenant-b-admin`;
const SECRET = 'keymaster-system/tenant-b-external-id';
const CLUSTER = { namespace: 'tenant-b', identityRef: { kind: ROLE, name: 'tenant-b' }, region: 'us-west-2' };

const secretData = (data: Record<string, string>) => ({
  data: Object.fromEntries(Object.entries(data).map(([key, value]) => [key, Buffer.from(value).toString('base64')])),
});

/** The ExternalId of every AssumeRole of tenant B's role the emulator saw, in order. */
const externalIdsSent = (h: Harness) =>
  h.aws.calls
    .summary()
    .recent.filter(({ action, detail }) => action === 'sts:AssumeRole' && detail?.['roleArn'] === TENANT_B_ROLE)
    .map(({ detail }) => detail?.['externalId']);

describe("a role identity's externalID kept in a Secret, against the aws-emulator", function () {
  this.timeout(60_000);
  let h: Harness;

  /** Tenant B's role reads its externalID from the Secret instead of its spec. */
  const useSecret = (
    ref: AWSClusterRoleIdentitySpec['externalIDSecretRef'] = { name: 'tenant-b-external-id', key: 'externalID' },
  ) =>
    h.platform.edit(ROLE, 'tenant-b', (role) => {
      const spec = role.spec as AWSClusterRoleIdentitySpec;
      delete spec.externalID;
      spec.externalIDSecretRef = ref;
    });

  async function refusal(): Promise<IdentityError> {
    try {
      await h.resolver.resolve(CLUSTER);
    } catch (error) {
      return error as IdentityError;
    }
    return expect.fail('expected the resolve to fail');
  }

  beforeEach(async () => {
    h = await startHarness();
    h.platform.secrets.set(SECRET, secretData({ externalID: EXTERNAL_ID }));
  });
  afterEach(async () => {
    h.resolver.clear();
    await h.aws.stop();
  });

  it("AssumeRole carries the Secret's externalID, which no key, message or session shows", async () => {
    useSecret();
    const session = await h.resolver.resolve(CLUSTER);
    expect(externalIdsSent(h)).to.deep.equal([EXTERNAL_ID]);
    expect(session.principalArn).to.equal(`arn:aws:sts::${TENANT_B}:assumed-role/tenant-b-admin/keymaster-tenant-b`);
    expect(JSON.stringify({ key: session.key, chain: session.chain })).not.to.include(EXTERNAL_ID);
  });

  it('moving a plain externalID into a Secret keeps the session: same value, same credential set, no STS call', async () => {
    const before = await h.resolver.resolve(CLUSTER);
    const calls = h.aws.calls.summary().total;
    useSecret();
    const after = await h.resolver.resolve(CLUSTER);
    expect(after.key).to.equal(before.key);
    expect(h.aws.calls.summary().total - calls).to.equal(0);
  });

  it('a Secret changed: the role assumed again with the new value at the next resolve, the old sets evicted', async () => {
    useSecret();
    const first = await h.resolver.resolve(CLUSTER);
    const sets = h.resolver.size.credentialSets;
    h.platform.secrets.set(SECRET, secretData({ externalID: EXTERNAL_ID_ROTATED }));
    const second = await h.resolver.resolve(CLUSTER);
    expect(second.key).not.to.equal(first.key);
    expect(externalIdsSent(h), 'one AssumeRole more, with the new value').to.deep.equal([
      EXTERNAL_ID,
      EXTERNAL_ID_ROTATED,
    ]);
    expect(h.resolver.size.credentialSets, "tenant B's old set evicted, its sources kept").to.equal(sets);

    // A value the trust policy does not accept: AWS refuses, and the hint says where the value is kept.
    h.platform.secrets.set(SECRET, secretData({ externalID: `${EXTERNAL_ID}-wrong` }));
    const denied = await refusal();
    expect(denied).to.include({ code: 'ERR_KEYMASTER_ASSUME_ROLE_FAILED', reason: 'AssumeRoleFailed' });
    expect(denied.hint).to.include('require the externalID of Secret tenant-b-external-id, key externalID');
    expect(`${denied.message} ${denied.hint ?? ''}`).not.to.include(`${EXTERNAL_ID}-wrong`);
  });

  const missing: [string, (harness: Harness) => void, string, string, RegExp][] = [
    [
      'a missing Secret',
      (harness) => harness.platform.secrets.delete(SECRET),
      'ERR_KEYMASTER_SECRET_NOT_FOUND',
      'SecretNotFound',
      /^Secret keymaster-system\/tenant-b-external-id of AWSClusterRoleIdentity\/tenant-b \(spec.externalIDSecretRef\) not found$/,
    ],
    [
      'a Secret without the key',
      (harness) => harness.platform.secrets.set(SECRET, secretData({ externalId: EXTERNAL_ID })),
      'ERR_KEYMASTER_SECRET_INVALID',
      'SecretInvalid',
      /\(spec.externalIDSecretRef\) is invalid: key externalID is missing or empty$/,
    ],
  ];
  for (const [description, arrange, code, reason, message] of missing)
    it(`${description}: ${reason}, naming the field and the fix, and no STS call`, async () => {
      useSecret();
      arrange(h);
      const error = await refusal();
      expect(error).to.include({ code, reason, usageChecked: true });
      expect(error.message).to.match(message);
      expect(error.hint).to.include("the role's externalID").and.include('under the key externalID');
      expect(h.aws.calls.summary().total).to.equal(0);
      expect(`${error.message} ${error.hint ?? ''}`).not.to.include(EXTERNAL_ID);
    });
});
