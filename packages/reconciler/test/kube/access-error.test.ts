import { ApiException } from '@kubernetes/client-node';
import { expect } from 'chai';
import { KubeAccessError, kubeAccessError, kubeRead } from '../../src/kube/access-error.js';

const status = (code: number, message: string) =>
  new ApiException(code, 'refused', JSON.stringify({ kind: 'Status', code, message }), {});
const FORBIDDEN =
  'awsclusters.infrastructure.keymaster.dev "b-prod" is forbidden: User "tenant-a-dev" cannot get resource "awsclusters" in API group "infrastructure.keymaster.dev" in the namespace "tenant-b"';
const request = {
  verb: 'get' as const,
  resource: 'awsclusters.infrastructure.keymaster.dev',
  namespace: 'tenant-b',
  name: 'b-prod',
};

describe('kubeAccessError: what the API server refused, told as the user needs it', () => {
  it('a 403: what was read, the RBAC verb, resource and scope it takes, the fix and how to check', () => {
    const error = kubeAccessError(status(403, FORBIDDEN), 'read AWSCluster tenant-b/b-prod', request)!;
    expect(error).to.be.instanceOf(KubeAccessError);
    expect(error).to.include({ code: 'ERR_KEYMASTER_FORBIDDEN', forbidden: true });
    expect(error.message).to.equal(`cannot read AWSCluster tenant-b/b-prod: ${FORBIDDEN}`);
    expect(error.hint).to.equal(
      'That takes get awsclusters.infrastructure.keymaster.dev in namespace tenant-b, which your RBAC does not grant: ' +
        'ask the platform team for it if you need what it reads. `kubectl auth can-i get awsclusters.infrastructure.keymaster.dev -n tenant-b` says what you may.',
    );
  });

  it('names the scope as kubectl does: every namespace (-A), or the cluster scope; and takes advice of its own', () => {
    const all = kubeAccessError(
      status(403, 'no'),
      'list',
      { verb: 'list', resource: 'awsclusters.x', namespace: 'all' },
      'give -n',
    )!;
    expect(all.hint).to.equal(
      'That takes list awsclusters.x in every namespace, which your RBAC does not grant: give -n. `kubectl auth can-i list awsclusters.x -A` says what you may.',
    );
    const cluster = kubeAccessError(status(403, 'no'), 'read', {
      verb: 'get',
      resource: 'namespaces',
      name: 'tenant-a',
    })!;
    expect(cluster.hint).to.match(
      /^That takes get namespaces at the cluster scope, .* `kubectl auth can-i get namespaces` says/,
    );
    const unnamed = kubeAccessError(status(403, 'no'), 'call the API server')!;
    expect(unnamed.hint).to.equal(
      'Your RBAC does not grant it (the message names the verb and resource): ask the platform team for it if you need what it reads. `kubectl auth can-i --list` says what you may.',
    );
  });

  it("a 401, another status, a network failure: each its own code and fix; anything else is not the API server's", () => {
    expect(kubeAccessError(status(401, 'Unauthorized'), 'read', request)).to.include({
      code: 'ERR_KEYMASTER_API_SERVER_REFUSED',
      forbidden: false,
      message: "cannot read: the API server refused the kubeconfig's credentials (401)",
    });
    expect(kubeAccessError(status(500, 'etcd is down'), 'read', request)).to.include({
      code: 'ERR_KEYMASTER_API_REQUEST_FAILED',
      message: 'cannot read: the API server answered 500: etcd is down',
    });
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' });
    expect(kubeAccessError(refused, 'read', request)).to.include({
      code: 'ERR_KEYMASTER_API_SERVER_UNREACHABLE',
      message: 'cannot read: the API server cannot be reached: connect ECONNREFUSED 127.0.0.1:6443',
    });
    expect(kubeAccessError(new TypeError('a bug'), 'read', request)).to.equal(undefined);
  });

  it('kubeRead passes values through, turns refusals into KubeAccessErrors, and leaves other errors alone', async () => {
    expect(await kubeRead('read', request, () => Promise.resolve(42))).to.equal(42);
    const refusal = await kubeRead('read', request, () => Promise.reject(status(403, FORBIDDEN))).catch(
      (error: unknown) => error,
    );
    expect(refusal).to.be.instanceOf(KubeAccessError).and.include({ forbidden: true });
    const bug = new TypeError('a bug');
    expect(await kubeRead('read', request, () => Promise.reject(bug)).catch((error: unknown) => error)).to.equal(bug);
  });
});
