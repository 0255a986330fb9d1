import { expect } from 'chai';
import { checkControllerCredentials, credentialSource } from '../src/index.js';

const keys = (features: Record<string, string> | undefined) => ({
  accessKeyId: 'AKIAEXAMPLE',
  secretAccessKey: 'x',
  ...(features ? { $source: features } : {}),
});

describe("the controller's credential source", () => {
  it("is read from the features the SDK's providers mark credentials with", () => {
    expect(credentialSource(keys({ CREDENTIALS_ENV_VARS: 'g' }), true)).to.equal('environment');
    expect(credentialSource(keys({ CREDENTIALS_ENV_VARS_STS_WEB_ID_TOKEN: 'h' }), true)).to.equal('web-identity');
    expect(credentialSource(keys({ CREDENTIALS_HTTP: 'z' }), true)).to.equal('container');
    expect(credentialSource(keys({ CREDENTIALS_PROFILE: 'n' }), true)).to.equal('profile');
    expect(credentialSource(keys({ CREDENTIALS_SSO: 's' }), true)).to.equal('profile');
  });

  it('unmarked: instance metadata from the default chain, or provided when the controller was given a provider', () => {
    expect(credentialSource(keys(undefined), true)).to.equal('instance-metadata');
    expect(credentialSource(keys(undefined), false)).to.equal('provided');
  });

  it("none, with the provider's message, when the provider fails", async () => {
    const check = await checkControllerCredentials(
      () => Promise.reject(new Error('Could not load credentials from any providers')),
      true,
    );
    expect(check).to.deep.equal({ source: 'none', error: 'Could not load credentials from any providers' });
  });
});
