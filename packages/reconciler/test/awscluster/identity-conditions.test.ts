import { expect } from 'chai';
import {
  AwsCredentialError,
  IdentityCycleError,
  IdentityNotFoundError,
  NamespaceNotAllowedError,
  SecretInvalidError,
  SecretNotFoundError,
} from '@keymaster/identity';
import { identityVerdict } from '../../src/awscluster/identity-conditions.js';

const link = { kind: 'AWSClusterRoleIdentity', name: 'tenant-b' };

describe('identityVerdict', () => {
  const cases: [string, unknown, string, string, boolean][] = [
    [
      "namespace refused by the cluster's identity",
      new NamespaceNotAllowedError(link, 'tenant-c', 0),
      'False/PrincipalUsageUnauthorized',
      'Unknown/NotAttempted',
      false,
    ],
    [
      'namespace refused by a source',
      new NamespaceNotAllowedError(link, 'tenant-c', 2),
      'False/SourcePrincipalUsageUnauthorized',
      'Unknown/NotAttempted',
      false,
    ],
    [
      'identity not found',
      new IdentityNotFoundError(link, 'x'),
      'Unknown/IdentityNotFound',
      'False/IdentityNotFound',
      false,
    ],
    [
      'Secret missing',
      new SecretNotFoundError(link, 'ns/s'),
      'True/PrincipalUsageAllowed',
      'False/SecretNotFound',
      false,
    ],
    [
      'Secret invalid',
      new SecretInvalidError(link, 'ns/s', ['key AccessKeyID is missing or empty']),
      'True/PrincipalUsageAllowed',
      'False/SecretInvalid',
      false,
    ],
    [
      'cycle',
      new IdentityCycleError([link, link]),
      'Unknown/IdentityChainInvalid',
      'False/IdentityChainInvalid',
      false,
    ],
    [
      'AssumeRole denied',
      new AwsCredentialError(link, 'sts:AssumeRole', 'AccessDenied', 'no', 'fix the trust policy'),
      'True/PrincipalUsageAllowed',
      'False/AssumeRoleFailed',
      true,
    ],
    [
      'keys refused',
      new AwsCredentialError(link, 'sts:GetCallerIdentity', 'InvalidClientTokenId', 'no', 'check keys'),
      'True/PrincipalUsageAllowed',
      'False/CredentialsRejected',
      true,
    ],
    [
      'network trouble',
      new Error('ECONNREFUSED'),
      'Unknown/CredentialRetrievalFailed',
      'False/CredentialRetrievalFailed',
      true,
    ],
  ];
  for (const [description, error, allowed, retrieved, transient] of cases) {
    it(description, () => {
      const verdict = identityVerdict(error);
      expect(`${verdict.allowed.status}/${verdict.allowed.reason}`).to.equal(allowed);
      expect(`${verdict.retrieved.status}/${verdict.retrieved.reason}`).to.equal(retrieved);
      expect(verdict.transient).to.equal(transient);
    });
  }

  it('puts the error and its hint in the message', () => {
    const verdict = identityVerdict(new NamespaceNotAllowedError(link, 'tenant-c', 0));
    expect(verdict.allowed.message).to.match(
      /^namespace "tenant-c" may not use AWSClusterRoleIdentity\/tenant-b\. Add "tenant-c" to spec\.allowedNamespaces/,
    );
  });
});
