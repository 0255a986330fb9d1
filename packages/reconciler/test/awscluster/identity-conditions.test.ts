import { expect } from 'chai';
import type { ConditionUpdate } from '@keymaster/api';
import {
  AwsCredentialError,
  AwsUnreachableError,
  ChainTooDeepError,
  ControllerCredentialsError,
  IdentityCycleError,
  IdentityDeletingError,
  IdentityNotFoundError,
  NamespaceNotAllowedError,
  SecretInvalidError,
  SecretNotFoundError,
  ServiceAccountTokenError,
} from '@keymaster/identity';
import { readyCondition, setCondition } from '../../src/awscluster/conditions.js';
import { identityVerdict, usageAllowed } from '../../src/awscluster/identity-conditions.js';

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
      'an identity being deleted refusing a new cluster',
      new IdentityDeletingError(link, 'tenant-c', 1),
      'False/IdentityDeleting',
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
      new SecretNotFoundError(link, 'ns/s', { field: 'spec.secretRef', holds: 'keys' }),
      'True/PrincipalUsageAllowed',
      'False/SecretNotFound',
      false,
    ],
    [
      'Secret invalid',
      new SecretInvalidError(link, 'ns/s', { field: 'spec.secretRef', holds: 'keys' }, [
        'key AccessKeyID is missing or empty',
      ]),
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
      'chain too deep',
      new ChainTooDeepError([link, link, link, link, link], 5),
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
      "a web identity's role refusing the namespace's subject (its trust policy)",
      new AwsCredentialError(link, 'sts:AssumeRoleWithWebIdentity', 'AccessDenied', 'no', 'name the subject'),
      'True/PrincipalUsageAllowed',
      'False/AssumeRoleWithWebIdentityFailed',
      true,
    ],
    [
      "a web identity's ServiceAccount missing in the namespace",
      new ServiceAccountTokenError(link, 'tenant-c/keymaster', 404, 'the API server answered 404'),
      'True/PrincipalUsageAllowed',
      'False/ServiceAccountTokenFailed',
      false,
    ],
    [
      'keys refused',
      new AwsCredentialError(link, 'sts:GetCallerIdentity', 'InvalidClientTokenId', 'no', 'check keys'),
      'True/PrincipalUsageAllowed',
      'False/CredentialsRejected',
      true,
    ],
    [
      'STS unreachable (DNS, connection, TLS, time-out)',
      new AwsUnreachableError(link, 'sts:GetCallerIdentity', 'sts.us-east-1.amazonaws.com', 'getaddrinfo ENOTFOUND'),
      'True/PrincipalUsageAllowed',
      'False/AWSUnreachable',
      true,
    ],
    [
      "the controller's own credentials missing",
      new ControllerCredentialsError('Could not load credentials from any providers'),
      'True/PrincipalUsageAllowed',
      'False/ControllerCredentialsUnavailable',
      true,
    ],
    [
      'an unexpected failure',
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

  describe('Ready, as the reconcile sums up a failed resolve', () => {
    // What the reconcile sets when resolving fails: both verdicts, and tags not checked.
    const ready = (error: unknown) => {
      const verdict = identityVerdict(error);
      const unchecked: ConditionUpdate = {
        type: 'TagsInSync',
        status: 'Unknown',
        reason: 'CredentialsUnavailable',
        message: 'Tags are not checked without credentials',
      };
      const conditions = [verdict.allowed, verdict.retrieved, unchecked].reduce(
        (set, update) => setCondition(set, update, 1, 't'),
        setCondition([], unchecked, 1, 't'),
      );
      return readyCondition(conditions);
    };
    for (const [description, error, allowed, retrieved] of cases) {
      // The first False of the two, as `kubectl wait --for=condition=Ready=false` needs.
      const expected = allowed.startsWith('False/') ? allowed : retrieved;
      it(`is ${expected} for ${description}`, () => {
        const condition = ready(error);
        expect(`${condition.status}/${condition.reason}`).to.equal(expected);
        const failed = identityVerdict(error);
        expect(condition.message).to.equal((allowed.startsWith('False/') ? failed.allowed : failed.retrieved).message);
      });
    }
  });

  it('carries the chain the refusal checked, for status.identityChain; none for other failures', () => {
    const refused = new NamespaceNotAllowedError(link, 'tenant-c', 0);
    refused.chain = [{ kind: link.kind, name: link.name }];
    expect(identityVerdict(refused).chain).to.deep.equal([{ kind: link.kind, name: link.name }]);
    expect(identityVerdict(new Error('ECONNREFUSED')).chain).to.deep.equal([]);
  });

  it('puts the error and its hint in the message', () => {
    const verdict = identityVerdict(new NamespaceNotAllowedError(link, 'tenant-c', 0));
    expect(verdict.allowed.message).to.match(
      /^namespace "tenant-c" may not use AWSClusterRoleIdentity\/tenant-b\. Add "tenant-c" to spec\.allowedNamespaces/,
    );
  });
});

describe('usageAllowed', () => {
  it('is plainly True for a chain of which no link is being deleted', () => {
    expect(usageAllowed({ deleting: [] })).to.include({ status: 'True', reason: 'PrincipalUsageAllowed' });
  });

  it('stays True for a user of identities being deleted, naming them and what to do', () => {
    const condition = usageAllowed({ deleting: [link, { kind: 'AWSClusterControllerIdentity', name: 'default' }] });
    expect(condition).to.include({ status: 'True', reason: 'IdentityDeleting' });
    expect(condition.message).to.equal(
      'Every identity of the chain allows this namespace. Being deleted: AWSClusterRoleIdentity/tenant-b, ' +
        'AWSClusterControllerIdentity/default. An identity being deleted still serves the AWSClusters that used it ' +
        'before, this one included, accepts no new ones, and goes once none uses it: point spec.identityRef at ' +
        'another identity (ask the platform team which).',
    );
  });
});
