import { expect } from 'chai';
import {
  sessionSecretData,
  WEB_IDENTITY_TOKEN_FILE,
  webIdentitySecretData,
} from '../../src/credentials/secret-data.js';

const credentials = {
  accessKeyId: 'ASIAEXAMPLE',
  secretAccessKey: 'secret/key+1',
  sessionToken: 'token==',
  expiration: new Date('2026-11-23T12:00:00Z'),
};

describe('sessionSecretData', () => {
  it('Environment: the variables the AWS SDKs and CLI read', () => {
    expect(sessionSecretData('Environment', credentials)).to.deep.equal({
      AWS_ACCESS_KEY_ID: 'ASIAEXAMPLE',
      AWS_SECRET_ACCESS_KEY: 'secret/key+1',
      AWS_SESSION_TOKEN: 'token==',
    });
  });

  it('CredentialsFile: one shared credentials file with a default profile', () => {
    expect(sessionSecretData('CredentialsFile', credentials)).to.deep.equal({
      credentials:
        '[default]\naws_access_key_id = ASIAEXAMPLE\naws_secret_access_key = secret/key+1\naws_session_token = token==\n',
    });
  });

  it("CloudCredentialOperator: CCO's keys, the session token, and its credentials file", () => {
    const data = sessionSecretData('CloudCredentialOperator', credentials);
    expect(data).to.include({
      aws_access_key_id: 'ASIAEXAMPLE',
      aws_secret_access_key: 'secret/key+1',
      aws_session_token: 'token==',
    });
    expect(data['credentials']).to.equal(sessionSecretData('CredentialsFile', credentials)['credentials']);
  });

  it('leaves the session token out when there is none', () => {
    const { sessionToken, ...keys } = credentials;
    expect(sessionToken).to.be.a('string');
    expect(sessionSecretData('Environment', keys)).not.to.have.property('AWS_SESSION_TOKEN');
    expect(sessionSecretData('CredentialsFile', keys)['credentials']).not.to.contain('aws_session_token');
  });
});

describe('webIdentitySecretData', () => {
  const config = { roleArn: 'arn:aws:iam::333333333333:role/reports', sessionName: 'keymaster-reports' };

  it('holds no secret material: the role, the token path and the session name', () => {
    for (const format of ['Environment', 'CredentialsFile', 'CloudCredentialOperator'] as const) {
      const text = Object.values(webIdentitySecretData(format, config)).join('\n');
      expect(text).to.contain(config.roleArn);
      expect(text).to.contain(WEB_IDENTITY_TOKEN_FILE);
      expect(text).not.to.match(/aws_secret_access_key|AWS_SECRET_ACCESS_KEY|session_token/i);
    }
    expect(webIdentitySecretData('Environment', config)).to.deep.equal({
      AWS_ROLE_ARN: config.roleArn,
      AWS_WEB_IDENTITY_TOKEN_FILE: WEB_IDENTITY_TOKEN_FILE,
      AWS_ROLE_SESSION_NAME: 'keymaster-reports',
    });
    expect(Object.keys(webIdentitySecretData('CredentialsFile', config))).to.deep.equal(['config']);
    expect(Object.keys(webIdentitySecretData('CloudCredentialOperator', config))).to.deep.equal(['credentials']);
  });
});
