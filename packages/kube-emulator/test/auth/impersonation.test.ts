import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { call, startTestCluster, type TestCluster } from '../helpers/emulator.js';

const TOKENS = `root-token,root,0,system:masters
eve-token,eve,1,tenants
`;
const WHOAMI = '/apis/authentication.k8s.io/v1/selfsubjectreviews';
const REVIEW = { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' };

interface Answer {
  status: number;
  body: unknown;
  headers: Headers;
}
const userInfo = (answer: Answer): unknown => (answer.body as { status: { userInfo: unknown } }).status.userInfo;
const message = (answer: Answer): string => (answer.body as { message: string }).message;

describe('impersonation (Impersonate-* headers)', function () {
  this.timeout(30_000);
  let folder: string;
  let cluster: TestCluster;
  const as = (token: string, headers: Record<string, string>, method = 'POST', path = WHOAMI): Promise<Answer> =>
    call(cluster.emulator, method, path, method === 'POST' ? REVIEW : undefined, {
      Authorization: `Bearer ${token}`,
      ...headers,
    });

  before(async () => {
    folder = mkdtempSync(join(tmpdir(), 'kube-emulator-impersonation-'));
    writeFileSync(join(folder, 'tokens.csv'), TOKENS);
    cluster = await startTestCluster({ tokenAuthFile: join(folder, 'tokens.csv'), authorization: 'RBAC' });
  });
  after(async () => {
    await cluster.stop();
    rmSync(folder, { recursive: true, force: true });
  });

  it('refuses a requester without the impersonate verb, naming the request it may not impersonate on (1.37)', async () => {
    const user = await as('eve-token', { 'Impersonate-User': 'bob' });
    expect(user.status).to.equal(403);
    expect(user.body).to.deep.include({
      reason: 'Forbidden',
      message:
        'selfsubjectreviews.authentication.k8s.io is forbidden: User "eve" cannot impersonate-on:user-info:create resource "selfsubjectreviews" in API group "authentication.k8s.io" at the cluster scope',
      details: { group: 'authentication.k8s.io', kind: 'selfsubjectreviews' },
    });
    const account = await as(
      'eve-token',
      { 'Impersonate-User': 'system:serviceaccount:apps:robot' },
      'GET',
      '/api/v1/namespaces/apps/configmaps/settings',
    );
    expect(message(account)).to.equal(
      'configmaps "settings" is forbidden: User "eve" cannot impersonate-on:serviceaccount:get resource "configmaps" in API group "" in the namespace "apps"',
    );
    expect(cluster.emulator.stats.forbidden({ user: 'eve' }), 'counted under the requester').to.equal(2);
  });

  it("answers kube-apiserver's 400 for groups, uid or extras without a user, with the user info asked for", async () => {
    const answer = await as('root-token', {
      'Impersonate-Group': 'g1',
      'Impersonate-Uid': 'u1',
      'Impersonate-Extra-Scopes': 'view',
      'Impersonate-Extra-Acme.com%2Fproject': 'apollo',
    });
    expect(answer.status).to.equal(400);
    expect(answer.body).to.deep.include({
      reason: 'BadRequest',
      message:
        'requested &user.DefaultInfo{Name:"", UID:"u1", Groups:[]string{"g1"}, Extra:map[string][]string{"acme.com/project":[]string{"apollo"}, "scopes":[]string{"view"}}} without impersonating a user name',
    });
    const groupOnly = await as('root-token', { 'Impersonate-Group': 'system:masters' });
    expect(message(groupOnly)).to.equal(
      'requested &user.DefaultInfo{Name:"", UID:"", Groups:[]string{"system:masters"}, Extra:map[string][]string(nil)} without impersonating a user name',
    );
  });

  it('names the constrained mode that applies to whom is asked for, or none: then the impersonate lacking', async () => {
    expect(message(await as('eve-token', { 'Impersonate-User': 'system:node:worker-1' }))).to.match(
      /cannot impersonate-on:arbitrary-node:create resource "selfsubjectreviews"/,
    );
    // A ServiceAccount or a node with groups is no constrained mode's: legacy impersonation alone answers.
    expect(
      message(
        await as('eve-token', { 'Impersonate-User': 'system:serviceaccount:apps:robot', 'Impersonate-Group': 'g' }),
      ),
    ).to.equal(
      'serviceaccounts "robot" is forbidden: User "eve" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "apps"',
    );
    expect(
      message(await as('eve-token', { 'Impersonate-User': 'system:node:worker-1', 'Impersonate-Uid': 'u' })),
    ).to.match(/^users "system:node:worker-1" is forbidden: User "eve" cannot impersonate resource "users"/);
  });

  it('acts as the user, groups, uid and extras asked for, authenticated unless anonymous', async () => {
    const bob = await as('root-token', {
      'Impersonate-User': 'bob',
      'Impersonate-Group': 'team',
      'Impersonate-Uid': 'bob-uid',
      'Impersonate-Extra-Scopes': 'view',
      'Impersonate-Extra-Acme.com%2Fproject': 'apollo',
    });
    expect(userInfo(bob)).to.deep.equal({
      username: 'bob',
      uid: 'bob-uid',
      groups: ['team', 'system:authenticated'],
      extra: { scopes: ['view'], 'acme.com/project': ['apollo'] },
    });
    const robot = await as('root-token', { 'Impersonate-User': 'system:serviceaccount:apps:robot' });
    expect(userInfo(robot)).to.deep.equal({
      username: 'system:serviceaccount:apps:robot',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:apps', 'system:authenticated'],
    });
    const anonymous = await as('root-token', { 'Impersonate-User': 'system:anonymous' });
    expect(message(anonymous)).to.match(
      /^selfsubjectreviews.authentication.k8s.io is forbidden: User "system:anonymous"/,
    );
  });

  it('allows what RBAC grants to impersonate, by name and kind, and the request is then authorized as that user', async () => {
    const rbac = '/apis/rbac.authorization.k8s.io/v1';
    await call(
      cluster.emulator,
      'POST',
      `${rbac}/clusterroles`,
      {
        metadata: { name: 'impersonator' },
        rules: [
          { apiGroups: [''], resources: ['users'], resourceNames: ['bob'], verbs: ['impersonate'] },
          { apiGroups: [''], resources: ['groups'], resourceNames: ['team'], verbs: ['impersonate'] },
          { apiGroups: ['authentication.k8s.io'], resources: ['userextras/scopes'], verbs: ['impersonate'] },
        ],
      },
      { Authorization: 'Bearer root-token' },
    );
    await call(
      cluster.emulator,
      'POST',
      `${rbac}/clusterrolebindings`,
      {
        metadata: { name: 'impersonator' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'impersonator' },
        subjects: [{ kind: 'User', name: 'eve' }],
      },
      { Authorization: 'Bearer root-token' },
    );
    expect(userInfo(await as('eve-token', { 'Impersonate-User': 'bob', 'Impersonate-Group': 'team' }))).to.deep.equal({
      username: 'bob',
      groups: ['team', 'system:authenticated'],
    });
    // Once an impersonation succeeded, kube-apiserver tries its mode first: refusals name what eve may not impersonate.
    expect(message(await as('eve-token', { 'Impersonate-User': 'alice' }))).to.equal(
      'users "alice" is forbidden: User "eve" cannot impersonate resource "users" in API group "" at the cluster scope',
    );
    expect(
      message(await as('eve-token', { 'Impersonate-User': 'bob', 'Impersonate-Group': 'system:masters' })),
    ).to.equal(
      'groups "system:masters" is forbidden: User "eve" cannot impersonate resource "groups" in API group "" at the cluster scope',
    );
    expect(message(await as('eve-token', { 'Impersonate-User': 'bob', 'Impersonate-Extra-Other': 'x' }))).to.equal(
      'userextras.authentication.k8s.io "x" is forbidden: User "eve" cannot impersonate resource "userextras/other" in API group "authentication.k8s.io" at the cluster scope',
    );
    const listed = await as('eve-token', { 'Impersonate-User': 'bob' }, 'GET', '/api/v1/namespaces/default/configmaps');
    expect(message(listed)).to.equal(
      'configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" in the namespace "default"',
    );
  });
});

describe('impersonation without RBAC', () => {
  let cluster: TestCluster;
  before(async () => {
    cluster = await startTestCluster();
  });
  after(() => cluster.stop());

  it('lets everyone impersonate, as AlwaysAllow authorizes every impersonate request', async () => {
    const answer = await call(cluster.emulator, 'POST', WHOAMI, REVIEW, { 'Impersonate-User': 'bob' });
    expect(userInfo(answer)).to.deep.equal({ username: 'bob', groups: ['system:authenticated'] });
  });
});
