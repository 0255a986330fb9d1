import { expect } from 'chai';
import { IdentityNotFoundError, NamespaceNotAllowedError, SecretNotFoundError } from '../src/index.js';

// Names reach messages from specs and stores that a tenant may fill; the API server's own checks
// keep such characters out of names, but a message must not depend on that.
describe('identity error messages', () => {
  const link = { kind: 'AWSClusterRoleIdentity', name: 'tenant\u202eb' };

  it('escape control and bidirectional characters of identity names, namespaces and Secrets', () => {
    const errors = [
      new IdentityNotFoundError(link, 'AWSClusters in namespace team\u2066a'),
      new NamespaceNotAllowedError(link, 'team\u202ea', 1),
      new SecretNotFoundError(link, 'keymaster-system/keys\u0000', { field: 'spec.secretRef', holds: 'keys' }),
    ];
    for (const error of errors) {
      expect(`${error.message} ${error.hint ?? ''}`)
        .to.not.match(/[\u202e\u2066]/)
        .and.not.include('\u0000');
      expect(error.message).to.contain('AWSClusterRoleIdentity/tenant\\u202eb');
    }
    expect(errors[1]!.message).to.contain('namespace "team\\u202ea"');
  });
});
