import { expect } from 'chai';
import type { AWSClusterRoleIdentitySpec } from '@keymaster/api';
import {
  providerOf,
  SecretInvalidError,
  SecretNotFoundError,
  type IdentityError,
  type IdentityObject,
  type SecretData,
} from '../../src/index.js';
import { memoryStore, role } from '../fixtures.js';

const EXTERNAL_ID = 'c0ffee00-tenant-b-4d1e';
const SECRET_REF = { name: 'tenant-b-external-id', key: 'externalID' };
const provider = providerOf('AWSClusterRoleIdentity');
const b64 = (text: string) => Buffer.from(text).toString('base64');
const secretOf = (data: Record<string, string>): Record<string, SecretData> => ({
  'keymaster-system/tenant-b-external-id': { data },
});

/** What the provider loads for a role when the chain is walked, or the IdentityError it refuses with. */
async function load(identity: IdentityObject, secrets: Record<string, SecretData> = {}) {
  const { store, reads } = memoryStore([identity], secrets);
  const ref = { kind: identity.kind, name: identity.metadata.name! };
  try {
    return {
      material: await provider.load!(identity, {
        ref,
        store,
        controllerNamespace: 'keymaster-system',
        secretNamespace: 'keymaster-system',
      }),
      reads,
    };
  } catch (error) {
    return { refusal: error as IdentityError, reads };
  }
}

const inputs = (identity: IdentityObject, material?: unknown) =>
  JSON.stringify(
    provider.credentialInputs(
      { kind: identity.kind, name: identity.metadata.name!, identity, material },
      'tenant-b',
      'keymaster-system',
    ),
  );

const confidential = (spec: Partial<AWSClusterRoleIdentitySpec>) =>
  provider.status(role('tenant-b', spec), {}).conditions?.find(({ type }) => type === 'ExternalIDConfidential');

describe('the role identity provider', () => {
  it("reads the externalID from its Secret in the controller's namespace, trimmed, and watches that Secret", async () => {
    const identity = role('tenant-b', { externalIDSecretRef: SECRET_REF });
    expect(provider.secrets(identity)).to.deep.equal(['tenant-b-external-id']);
    const { material, reads } = await load(identity, secretOf({ externalID: b64(`${EXTERNAL_ID}\n`) }));
    expect(material).to.equal(EXTERNAL_ID);
    expect(reads.secrets).to.deep.equal(['keymaster-system/tenant-b-external-id']);
  });

  it('reads no Secret for a role without externalIDSecretRef', async () => {
    const identity = role('hub', { externalID: EXTERNAL_ID });
    expect(provider.secrets(identity)).to.deep.equal([]);
    const { material, reads } = await load(identity);
    expect(material).to.equal(undefined);
    expect(reads.secrets).to.deep.equal([]);
  });

  const refusals: [string, Record<string, SecretData>, new (...args: never[]) => IdentityError, RegExp][] = [
    ['a missing Secret', {}, SecretNotFoundError, /tenant-b-external-id .*\(spec\.externalIDSecretRef\) not found/],
    ['a missing key', secretOf({ other: b64(EXTERNAL_ID) }), SecretInvalidError, /key externalID is missing or empty/],
    ['an empty key', secretOf({ externalID: b64(' \n') }), SecretInvalidError, /key externalID is missing or empty/],
    [
      'a value AWS would refuse',
      secretOf({ externalID: b64(`${EXTERNAL_ID} with spaces`) }),
      SecretInvalidError,
      /key externalID does not hold an externalID \(2-1224 characters/,
    ],
    ['a value too short', secretOf({ externalID: b64('x') }), SecretInvalidError, /does not hold an externalID/],
    [
      'a value too long',
      secretOf({ externalID: b64('x'.repeat(1225)) }),
      SecretInvalidError,
      /does not hold an externalID/,
    ],
  ];
  for (const [what, secrets, type, message] of refusals)
    it(`refuses ${what}, naming the field, the Secret and the fix, never the value`, async () => {
      const { refusal } = await load(role('tenant-b', { externalIDSecretRef: SECRET_REF }), secrets);
      expect(refusal).to.be.instanceOf(type);
      expect(refusal!.message).to.match(message);
      expect(refusal!.message).to.include(
        'Secret keymaster-system/tenant-b-external-id of AWSClusterRoleIdentity/tenant-b (spec.externalIDSecretRef)',
      );
      expect(refusal!.hint).to.include("the role's externalID").and.include('under the key externalID');
      expect(refusal!.usageChecked, 'the namespace was allowed before the Secret was read').to.equal(true);
      expect(`${refusal!.message} ${refusal!.hint ?? ''}`).not.to.include(EXTERNAL_ID);
    });

  it('keys credentials by a digest of the externalID sent, wherever it is kept, never by the value', () => {
    const inSecret = role('tenant-b', { externalIDSecretRef: SECRET_REF });
    const inSpec = role('tenant-b', { externalID: EXTERNAL_ID });
    inSpec.metadata.uid = inSecret.metadata.uid!;
    expect(inputs(inSecret, EXTERNAL_ID)).not.to.include(EXTERNAL_ID);
    expect(inputs(inSpec)).not.to.include(EXTERNAL_ID);
    expect(inputs(inSecret, EXTERNAL_ID), 'moving it into a Secret starts no new session').to.equal(inputs(inSpec));
    expect(inputs(inSecret, `${EXTERNAL_ID}-rotated`), 'a new value, a new session').not.to.equal(
      inputs(inSecret, EXTERNAL_ID),
    );
    expect(inputs(role('tenant-b')), 'no externalID').not.to.include('externalID');
  });

  it('says whether its externalID is out of tenants reach: ExternalIDConfidential', () => {
    expect(confidential({ externalIDSecretRef: SECRET_REF })).to.deep.include({
      status: 'True',
      reason: 'ExternalIDInSecret',
    });
    expect(confidential({})).to.deep.include({ status: 'True', reason: 'NoExternalID' });
    const plain = confidential({ externalID: EXTERNAL_ID });
    expect(plain).to.deep.include({ status: 'False', reason: 'ExternalIDInSpec' });
    expect(plain!.message).to.include('spec.externalIDSecretRef').and.include('keymaster-identity-viewer');
    expect(plain!.message).not.to.include(EXTERNAL_ID);
  });

  it('warns about a plain externalID at admission, naming the identity and how to move it, never the value', () => {
    expect(provider.warnings(role('tenant-b', { externalIDSecretRef: SECRET_REF }))).to.deep.equal([]);
    expect(provider.warnings(role('hub'))).to.deep.equal([]);
    const [warning, ...others] = provider.warnings(role('tenant-b', { externalID: EXTERNAL_ID }));
    expect(others).to.deep.equal([]);
    expect(warning).to.match(/^AWSClusterRoleIdentity\/tenant-b: spec\.externalID is readable by every tenant/);
    expect(warning).to.include('docs/operations.md#moving-externalids-to-secrets').and.not.include(EXTERNAL_ID);
  });
});
