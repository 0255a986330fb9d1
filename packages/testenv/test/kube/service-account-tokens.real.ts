import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { kubectl } from './helpers/kubectl.js';
import { eventually } from './helpers/processes.js';
import { normalize, observed } from './service-accounts/normalize.js';
import { send, startSides, TENANT, type Answer, type Side, type Sides } from './service-accounts/servers.js';

const NS = 'sa-tokens';
const ACCOUNTS = `/api/v1/namespaces/${NS}/serviceaccounts`;
const TOKEN = `${ACCOUNTS}/robot/token`;
const REVIEWS = '/apis/authentication.k8s.io/v1/tokenreviews';
const tokenRequest = (spec: unknown, extra: object = {}): object => ({
  apiVersion: 'authentication.k8s.io/v1',
  kind: 'TokenRequest',
  ...extra,
  spec,
});
const tokenReview = (spec: unknown): object => ({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec });

/** What each server handed out that later requests use: its tokens and the Secret's uid. */
interface Issued {
  robot: string;
  sts: string;
  secretUid: string;
}

const tokenOf = (answer: Answer): string => (answer.body as { status: { token: string } }).status.token;

describe('service-account tokens: the kube-emulator answers as kube-apiserver does', function () {
  this.timeout(240_000);
  let sides: Sides;
  const issued = new Map<Side, Issued>();
  const both = (): Side[] => [sides.emulator, sides.real];

  /** Sends the same request to both servers (built per server) and compares the normalized answers. */
  async function same(label: string, build: (side: Side, own: Issued) => Promise<Answer>): Promise<Answer[]> {
    const answers = await Promise.all(both().map((side) => build(side, issued.get(side)!)));
    const [emulator, real] = answers.map((answer, index) => observed(answer, both()[index]!));
    expect(emulator, label).to.deep.equal(real);
    return answers;
  }

  /**
   * Waits until kube-apiserver's RBAC allows the tenant what was just granted: its authorizer reads
   * RBAC from informers, so a binding takes a moment to count there (the emulator's counts at once).
   */
  const untilTenantMay = (attributes: object): Promise<void> =>
    eventually(async () => {
      const review = await send(sides.real, 'POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', sides.admin, {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: { user: TENANT.user, groups: TENANT.groups, ...attributes },
      });
      expect((review.body as { status?: { allowed?: boolean } }).status?.allowed, JSON.stringify(attributes)).to.equal(
        true,
      );
    }, 30_000);

  before(async () => {
    sides = await startSides();
    for (const side of both()) {
      await send(side, 'POST', '/api/v1/namespaces', sides.admin, { metadata: { name: NS } });
      await send(side, 'POST', ACCOUNTS, sides.admin, { metadata: { name: 'robot' } });
      const secret = await send(side, 'POST', `/api/v1/namespaces/${NS}/secrets`, sides.admin, {
        metadata: { name: 's1' },
      });
      issued.set(side, {
        robot: tokenOf(await send(side, 'POST', TOKEN, sides.admin, tokenRequest({}))),
        sts: tokenOf(await send(side, 'POST', TOKEN, sides.admin, tokenRequest({ audiences: ['sts.amazonaws.com'] }))),
        secretUid: (secret.body as { metadata: { uid: string } }).metadata.uid,
      });
    }
  });
  after(async () => {
    await sides.stop();
  });

  it('issues the same tokens: claims, lifetime, audiences, defaults and the answer around them', async () => {
    const bodies: [string, unknown][] = [
      ['no spec', tokenRequest({})],
      ['an empty body', {}],
      ['audiences and an hour', tokenRequest({ audiences: ['sts.amazonaws.com', 'other'], expirationSeconds: 3600 })],
      ['the shortest: 600 s', tokenRequest({ expirationSeconds: 600 })],
      ['two days', tokenRequest({ expirationSeconds: 172800 })],
      ['metadata naming the account', tokenRequest({}, { metadata: { name: 'robot', namespace: NS } })],
    ];
    for (const [label, body] of bodies) {
      const answers = await same(label, (side) => send(side, 'POST', TOKEN, sides.admin, body));
      for (const answer of answers) {
        const { metadata, spec, status } = answer.body as {
          metadata: { creationTimestamp: string };
          spec: { expirationSeconds: number };
          status: { expirationTimestamp: string };
        };
        const lifetime = (Date.parse(status.expirationTimestamp) - Date.parse(metadata.creationTimestamp)) / 1000;
        expect(lifetime, `${label}: expirationTimestamp - creationTimestamp`).to.equal(spec.expirationSeconds);
      }
    }
  });

  it('refuses bad expirations and bodies Go cannot decode, with the same Status', async () => {
    const bodies: [string, unknown][] = [
      ['599 s', tokenRequest({ expirationSeconds: 599 })],
      ['0 s', tokenRequest({ expirationSeconds: 0 })],
      ['negative', tokenRequest({ expirationSeconds: -5 })],
      ['over 2^32 s', tokenRequest({ expirationSeconds: 4294967297 })],
      ['a string', tokenRequest({ expirationSeconds: 'an hour' })],
      ['a fraction', tokenRequest({ expirationSeconds: 3600.5 })],
      ['audiences as a string', tokenRequest({ audiences: 'sts.amazonaws.com' })],
      ['an audience as a number', tokenRequest({ audiences: [7] })],
      ['spec as a list', tokenRequest([])],
      ['a bound name as a number', tokenRequest({ boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 1 } })],
      ['another kind', { apiVersion: 'v1', kind: 'ConfigMap' }],
      ['an unknown field', tokenRequest({ expirationSeconds: 3600, lifetime: 'long' })],
    ];
    for (const [label, body] of bodies) await same(label, (side) => send(side, 'POST', TOKEN, sides.admin, body));
  });

  it('needs the ServiceAccount, its namespace, and a body naming them if it names anything', async () => {
    await same('a missing ServiceAccount', (side) =>
      send(side, 'POST', `${ACCOUNTS}/ghost/token`, sides.admin, tokenRequest({})),
    );
    await same('a missing namespace', (side) =>
      send(side, 'POST', '/api/v1/namespaces/nowhere/serviceaccounts/robot/token', sides.admin, tokenRequest({})),
    );
    await same('another name', (side) =>
      send(side, 'POST', TOKEN, sides.admin, tokenRequest({}, { metadata: { name: 'other' } })),
    );
    await same('another namespace', (side) =>
      send(side, 'POST', TOKEN, sides.admin, tokenRequest({}, { metadata: { namespace: 'other' } })),
    );
    await same("another account's uid", (side) =>
      send(
        side,
        'POST',
        TOKEN,
        sides.admin,
        tokenRequest({}, { metadata: { uid: '00000000-0000-0000-0000-000000000000' } }),
      ),
    );
    await same('expiration checked after the account', (side) =>
      send(side, 'POST', `${ACCOUNTS}/ghost/token`, sides.admin, tokenRequest({ expirationSeconds: 5 })),
    );
  });

  it('binds tokens to Secrets only (Pods and Nodes do not exist), checking their uid', async () => {
    const bound = (ref: object) => tokenRequest({ boundObjectRef: ref });
    const cases: [string, (own: Issued) => object][] = [
      ['a Secret', () => bound({ kind: 'Secret', apiVersion: 'v1', name: 's1' })],
      ['a Secret with its uid', (own) => bound({ kind: 'Secret', apiVersion: 'v1', name: 's1', uid: own.secretUid })],
      ['a Secret with another uid', () => bound({ kind: 'Secret', apiVersion: 'v1', name: 's1', uid: 'a-stale-uid' })],
      ['a missing Secret', () => bound({ kind: 'Secret', apiVersion: 'v1', name: 'nothing' })],
      ['a Pod', () => bound({ kind: 'Pod', apiVersion: 'v1', name: 'web-0' })],
      ['a Node', () => bound({ kind: 'Node', apiVersion: 'v1', name: 'node-1' })],
      ['a ConfigMap', () => bound({ kind: 'ConfigMap', apiVersion: 'v1', name: 'c' })],
      ['a Deployment', () => bound({ kind: 'Deployment', apiVersion: 'apps/v1', name: 'd' })],
      ['nothing named', () => bound({})],
    ];
    for (const [label, body] of cases)
      await same(label, (side, own) => send(side, 'POST', TOKEN, sides.admin, body(own)));
  });

  it('serves the subresource to POST only, under RBAC create on serviceaccounts/token', async () => {
    await same('GET', (side) => send(side, 'GET', TOKEN, sides.admin));
    await same('PUT', (side) => send(side, 'PUT', TOKEN, sides.admin, tokenRequest({})));
    await same('POST on the collection', (side) =>
      send(side, 'POST', `${ACCOUNTS}/token`, sides.admin, tokenRequest({})),
    );
    await same('a tenant without a grant', (side) => send(side, 'POST', TOKEN, sides.tenant, tokenRequest({})));
    await same('a tenant, for a missing account', (side) =>
      send(side, 'POST', `${ACCOUNTS}/ghost/token`, sides.tenant, tokenRequest({})),
    );
    for (const side of both()) {
      const rules = [{ apiGroups: [''], resources: ['serviceaccounts/token'], verbs: ['create'] }];
      await send(side, 'POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/roles`, sides.admin, {
        metadata: { name: 'token-creator' },
        rules,
      });
      await send(side, 'POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/rolebindings`, sides.admin, {
        metadata: { name: 'tenant-token-creator' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'token-creator' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'tenant' }],
      });
    }
    await untilTenantMay({
      resourceAttributes: { namespace: NS, verb: 'create', resource: 'serviceaccounts', subresource: 'token' },
    });
    await same('a tenant granted create on serviceaccounts/token', (side) =>
      send(side, 'POST', TOKEN, sides.tenant, tokenRequest({ audiences: ['sts.amazonaws.com'] })),
    );
    await same('the grant is not get on serviceaccounts', (side) =>
      send(side, 'GET', `${ACCOUNTS}/robot`, sides.tenant),
    );
  });

  it('publishes the issuer and its key (OIDC discovery) to service accounts and the admin only', async () => {
    const paths = [
      '/.well-known/openid-configuration',
      '/.well-known/openid-configuration/',
      '/openid/v1/jwks',
      '/openid/v1/jwks/',
    ];
    for (const path of paths) {
      await same(`${path} as the admin`, (side) => send(side, 'GET', path, sides.admin));
      await same(`${path} as a service account`, (side, own) => send(side, 'GET', path, own.robot));
      await same(`${path} as the tenant`, (side) => send(side, 'GET', path, sides.tenant));
    }
    await same('POST to the JWKS', (side) => send(side, 'POST', '/openid/v1/jwks', sides.admin, {}));
    for (const side of both()) {
      await send(side, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', sides.admin, {
        metadata: { name: 'issuer-reader' },
        rules: [{ nonResourceURLs: ['/openid/*'], verbs: ['get'] }],
      });
      await send(side, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', sides.admin, {
        metadata: { name: 'tenants-read-issuer' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'issuer-reader' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'tenants' }],
      });
    }
    await untilTenantMay({ nonResourceAttributes: { path: '/openid/v1/jwks', verb: 'get' } });
    await same('the JWKS, granted by a nonResourceURLs prefix', (side) =>
      send(side, 'GET', '/openid/v1/jwks', sides.tenant),
    );
    await same('the discovery document, outside the prefix', (side) =>
      send(side, 'GET', '/.well-known/openid-configuration', sides.tenant),
    );
    for (const side of both()) {
      const answer = await send(side, 'GET', '/openid/v1/jwks', sides.admin);
      const [key] = (answer.body as { keys: { kid: string }[] }).keys;
      const header = JSON.parse(Buffer.from(issued.get(side)!.robot.split('.')[0]!, 'base64url').toString()) as {
        kid: string;
      };
      expect(header.kid, `${side.name}: the token's kid is the published key's`).to.equal(key!.kid);
    }
  });

  it('reviews tokens (TokenReview) with the same verdicts, users, audiences and errors', async () => {
    const tamper = (token: string, claims: object): string => {
      const [head, payload, signature] = token.split('.') as [string, string, string];
      const changed = { ...(JSON.parse(Buffer.from(payload, 'base64url').toString()) as object), ...claims };
      return `${head}.${Buffer.from(JSON.stringify(changed)).toString('base64url')}.${signature}`;
    };
    const cases: [string, (own: Issued) => object][] = [
      ['its own audience', (own) => ({ token: own.robot })],
      ['an STS token for the API server', (own) => ({ token: own.sts })],
      ['an STS token for STS', (own) => ({ token: own.sts, audiences: ['sts.amazonaws.com'] })],
      ['an STS token for STS or another', (own) => ({ token: own.sts, audiences: ['other', 'sts.amazonaws.com'] })],
      ['garbage', () => ({ token: 'garbage' })],
      ['a static token', () => ({ token: sides.tenant })],
      ['a static token for STS', () => ({ token: sides.tenant, audiences: ['sts.amazonaws.com'] })],
      ['a broken signature', (own) => ({ token: `${own.robot.slice(0, -4)}AAAA` })],
      ['another issuer', (own) => ({ token: tamper(own.robot, { iss: 'https://elsewhere.example' }) })],
      ['another subject', (own) => ({ token: tamper(own.robot, { sub: 'system:serviceaccount:kube-system:admin' }) })],
      [
        'an unknown key',
        (own) => ({ token: ['eyJhbGciOiJSUzI1NiIsImtpZCI6Im5vcGUifQ', ...own.robot.split('.').slice(1)].join('.') }),
      ],
      ['no token', () => ({})],
      ['a token as a number', () => ({ token: 42 })],
      ['an unknown field', (own) => ({ token: own.robot, expiry: 'soon' })],
    ];
    for (const [label, spec] of cases) {
      await same(label, (side, own) => send(side, 'POST', REVIEWS, sides.admin, tokenReview(spec(own))));
    }
    await same('by the tenant', (side, own) =>
      send(side, 'POST', REVIEWS, sides.tenant, tokenReview({ token: own.robot })),
    );
    await same('in a namespace', (side, own) =>
      send(
        side,
        'POST',
        `/apis/authentication.k8s.io/v1/namespaces/${NS}/tokenreviews`,
        sides.admin,
        tokenReview({ token: own.robot }),
      ),
    );
    await same('GET', (side) => send(side, 'GET', REVIEWS, sides.admin));
    await same('another kind', (side, own) =>
      send(side, 'POST', REVIEWS, sides.admin, { apiVersion: 'v1', kind: 'ConfigMap', spec: { token: own.robot } }),
    );
  });

  it('authenticates requests with service-account tokens for its own audience only (SelfSubjectReview, RBAC)', async () => {
    const whoami = '/apis/authentication.k8s.io/v1/selfsubjectreviews';
    const review = { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' };
    await same('whoami as the service account', (side, own) => send(side, 'POST', whoami, own.robot, review));
    await same('whoami as the admin', (side) => send(side, 'POST', whoami, sides.admin, review));
    await same('whoami as the tenant, with an empty body', (side) => send(side, 'POST', whoami, sides.tenant, {}));
    await same('the service account under RBAC', (side, own) =>
      send(side, 'GET', `/api/v1/namespaces/${NS}/secrets`, own.robot),
    );
    await same('an STS token', (side, own) => send(side, 'GET', `/api/v1/namespaces/${NS}/secrets`, own.sts));
    await same('garbage', (side) => send(side, 'GET', `/api/v1/namespaces/${NS}/secrets`, 'garbage'));
  });

  it('stops authenticating a token once its Secret or ServiceAccount is gone or replaced', async () => {
    const boundTokens = new Map<Side, string>();
    const doomed = new Map<Side, string>();
    for (const side of both()) {
      await send(side, 'POST', ACCOUNTS, sides.admin, { metadata: { name: 'doomed' } });
      await send(side, 'POST', `/api/v1/namespaces/${NS}/secrets`, sides.admin, { metadata: { name: 'bound' } });
      const bound = { boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 'bound' } };
      boundTokens.set(side, tokenOf(await send(side, 'POST', TOKEN, sides.admin, tokenRequest(bound))));
      doomed.set(side, tokenOf(await send(side, 'POST', `${ACCOUNTS}/doomed/token`, sides.admin, tokenRequest({}))));
      await send(side, 'DELETE', `/api/v1/namespaces/${NS}/secrets/bound`, sides.admin);
      await send(side, 'DELETE', `${ACCOUNTS}/doomed`, sides.admin);
    }
    // kube-apiserver caches a token's success for 10 s; none of these was authenticated before.
    await same('bound to a deleted Secret', (side) =>
      send(side, 'POST', REVIEWS, sides.admin, tokenReview({ token: boundTokens.get(side) })),
    );
    await same('of a deleted ServiceAccount', (side) =>
      send(side, 'POST', REVIEWS, sides.admin, tokenReview({ token: doomed.get(side) })),
    );
    for (const side of both()) {
      await send(side, 'POST', ACCOUNTS, sides.admin, { metadata: { name: 'doomed' } });
      await send(side, 'POST', `/api/v1/namespaces/${NS}/secrets`, sides.admin, { metadata: { name: 'bound' } });
    }
    await sleep(11_000);
    await same('bound to a re-created Secret', (side) =>
      send(side, 'POST', REVIEWS, sides.admin, tokenReview({ token: boundTokens.get(side) })),
    );
    await same('of a re-created ServiceAccount', (side) =>
      send(side, 'POST', REVIEWS, sides.admin, tokenReview({ token: doomed.get(side) })),
    );
    await same('as a bearer token', (side) => send(side, 'GET', '/api', doomed.get(side)));
  });

  it('lists serviceaccounts/token and authentication.k8s.io/v1 in discovery', async () => {
    const pick = (answer: Answer, part: (body: never) => unknown): Answer => ({
      ...answer,
      body: part(answer.body as never),
    });
    // Without storageVersionHash: the discovery corpus (test/fidelity/kube) compares the hashes.
    await same('/api/v1 serviceaccounts', async (side) =>
      pick(await send(side, 'GET', '/api/v1', sides.admin), (body: { resources: { name: string }[] }) =>
        body.resources
          .filter(({ name }) => name.startsWith('serviceaccounts'))
          .map((resource) => ({ ...resource, storageVersionHash: undefined })),
      ),
    );
    await same('/apis/authentication.k8s.io/v1', (side) =>
      send(side, 'GET', '/apis/authentication.k8s.io/v1', sides.admin),
    );
    await same('/apis/authentication.k8s.io', (side) => send(side, 'GET', '/apis/authentication.k8s.io', sides.admin));
  });

  it('works with kubectl of the same minor: create token (and its errors) and auth whoami', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sa-tokens-kubectl-'));
    try {
      const runs = async (args: (side: Side) => string[], token: (side: Side) => string) =>
        Promise.all(
          both().map(async (side) => {
            const config = join(dir, `${side.name}-${Math.random().toString(36).slice(2)}`);
            await writeFile(config, side.kubeConfig(token(side)));
            const result = await kubectl(config, args(side));
            const stdout = result.stdout.trim();
            return {
              code: result.code,
              stdout: normalize(stdout.startsWith('{') ? JSON.parse(stdout) : stdout, side),
              stderr: normalize(result.stderr.trim(), side),
            };
          }),
        );
      const compare = async (label: string, args: string[], token: (side: Side) => string = () => sides.admin) => {
        const [emulator, real] = await runs(() => args, token);
        expect(emulator, label).to.deep.equal(real);
        return real!;
      };
      const made = await compare('create token', [
        'create',
        'token',
        'robot',
        '-n',
        NS,
        '--audience',
        'sts.amazonaws.com',
        '--duration',
        '1h',
      ]);
      expect(made.code).to.equal(0);
      expect(made.stdout).to.have.nested.property('jwt.claims.sub', `system:serviceaccount:${NS}:robot`);
      await compare('create token bound to a Secret', [
        'create',
        'token',
        'robot',
        '-n',
        NS,
        '--bound-object-kind',
        'Secret',
        '--bound-object-name',
        's1',
        '-o',
        'json',
      ]);
      await compare('create token too short', ['create', 'token', 'robot', '-n', NS, '--duration', '5m']);
      await compare('create token for nobody', ['create', 'token', 'ghost', '-n', NS]);
      await compare(
        'auth whoami as the service account',
        ['auth', 'whoami', '-o', 'json'],
        (side) => issued.get(side)!.robot,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
