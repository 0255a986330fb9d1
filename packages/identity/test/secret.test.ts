import { expect } from 'chai';
import { credentialsFromSecret } from '../src/secret.js';
import { SecretInvalidError } from '../src/index.js';

const b64 = (text: string) => Buffer.from(text).toString('base64');
const link = { kind: 'AWSClusterStaticIdentity', name: 'tenant-a' };
const read = (data: Record<string, string>) => credentialsFromSecret(link, 'keymaster-system/keys', data);

function refusal(data: Record<string, string>): SecretInvalidError {
  try {
    read(data);
  } catch (error) {
    expect(error).to.be.instanceOf(SecretInvalidError);
    return error as SecretInvalidError;
  }
  return expect.fail('expected SecretInvalidError');
}

describe('credentialsFromSecret', () => {
  it('reads Cluster API keys, with an optional session token', () => {
    expect(read({ AccessKeyID: b64('AKIAEXAMPLE000000001'), SecretAccessKey: b64('s3cret') })).to.deep.equal({
      accessKeyId: 'AKIAEXAMPLE000000001',
      secretAccessKey: 's3cret',
    });
    expect(
      read({ AccessKeyID: b64('ASIAEXAMPLE000000001'), SecretAccessKey: b64('s'), SessionToken: b64('t') }),
    ).to.have.property('sessionToken', 't');
  });

  it('reads the cloud-credential-operator format', () => {
    expect(read({ aws_access_key_id: b64('AKIAEXAMPLE000000002'), aws_secret_access_key: b64('x\n') })).to.deep.equal({
      accessKeyId: 'AKIAEXAMPLE000000002',
      secretAccessKey: 'x',
    });
  });

  it('names every missing key, and never a value', () => {
    const error = refusal({ AccessKeyID: b64('AKIAEXAMPLE000000001') });
    expect(error.code).to.equal('ERR_KEYMASTER_SECRET_INVALID');
    expect(error.problems).to.deep.equal(['key SecretAccessKey is missing or empty']);
    expect(refusal({}).problems).to.deep.equal([
      'key AccessKeyID is missing or empty',
      'key SecretAccessKey is missing or empty',
    ]);
    expect(refusal({ aws_secret_access_key: b64('very-secret') }).problems).to.deep.equal([
      'key aws_access_key_id is missing or empty',
    ]);
  });

  it('refuses a malformed access key ID without repeating it', () => {
    const error = refusal({ AccessKeyID: b64('not a key'), SecretAccessKey: b64('very-secret') });
    expect(error.message).to.match(/AccessKeyID does not hold an access key ID/);
    expect(error.message).not.to.include('not a key');
    expect(error.message).not.to.include('very-secret');
  });
});
