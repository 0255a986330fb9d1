import { execFile } from 'node:child_process';
import { mkdtemp, readFile, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { KubernetesObject, V1Secret } from '@kubernetes/client-node';
import { API_VERSION, GROUP, VERSION, type AWSCredentialsRequest } from '@keymaster/api';
import type { World } from '@keymaster/aws-emulator';
import type { KubeEmulator } from '@keymaster/kube-emulator';
import { expect } from 'chai';
import { EXPIRES_ANNOTATION, REQUEST_LABEL } from '../../src/credentials/owned-secret.js';
import { realClock } from '../../src/runtime/clock.js';
import { kubectl133 } from '../cli/kubectl.js';
import { CONTROLLER_KEYS, eventually, gone, startPlatform, type Platform } from './harness.js';

const WORKLOADS_ROLE = 'arn:aws:iam::111111111111:role/workloads';

const world = (): World => ({
  accounts: [
    {
      id: '111111111111',
      users: [{ name: 'keymaster-controller', accessKeys: [CONTROLLER_KEYS], allow: ['sts:AssumeRole'] }],
      roles: [
        {
          name: 'workloads',
          trust: [{ principal: 'arn:aws:iam::111111111111:user/keymaster-controller' }],
          // The role may tag; the requests' session policies let their credentials only read tags.
          allow: ['tag:*', 'ec2:CreateTags', 'ec2:DescribeTags'],
        },
      ],
      resources: [{ arn: 'arn:aws:ec2:us-west-2:111111111111:instance/i-0000000000000000a', tags: { team: 'a' } }],
    },
  ],
});

const namespace = (name: string) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
const identities = (allowed: string[]) => [
  {
    apiVersion: API_VERSION,
    kind: 'AWSClusterControllerIdentity',
    metadata: { name: 'default' },
    spec: { allowedNamespaces: { list: ['tenant-a', 'tenant-b'] } },
  },
  {
    apiVersion: API_VERSION,
    kind: 'AWSClusterRoleIdentity',
    metadata: { name: 'workloads' },
    spec: {
      roleARN: WORKLOADS_ROLE,
      sessionName: 'workloads',
      allowedNamespaces: { list: allowed },
      credentialVending: { allowedNamespaces: { list: allowed } },
    },
  },
];

const request = (name: string, format: string, fields: Record<string, unknown> = {}): AWSCredentialsRequest => ({
  apiVersion: API_VERSION,
  kind: 'AWSCredentialsRequest',
  metadata: { name, namespace: 'tenant-a' },
  spec: {
    identityRef: { kind: 'AWSClusterRoleIdentity', name: 'workloads' },
    statements: [{ effect: 'Allow', actions: ['tag:GetResources'], resources: ['*'] }],
    durationSeconds: 3600,
    secretRef: { name: `${name}-aws` },
    format: format as AWSCredentialsRequest['spec']['format'],
    ...fields,
  },
});

const decode = (secret: V1Secret) =>
  Object.fromEntries(
    Object.entries(secret.data ?? {}).map(([key, value]) => [key, Buffer.from(value, 'base64').toString()]),
  );

/** The keys of a Secret in any of the three formats, parsed as a workload would find them. */
function keysOf(secret: V1Secret) {
  const data = decode(secret);
  const file = data['credentials'];
  if (file && !data['aws_access_key_id']) {
    const value = (key: string) => new RegExp(`^${key} = (.*)$`, 'm').exec(file)?.[1] ?? '';
    return {
      accessKeyId: value('aws_access_key_id'),
      secretAccessKey: value('aws_secret_access_key'),
      sessionToken: value('aws_session_token'),
    };
  }
  return {
    accessKeyId: data['AWS_ACCESS_KEY_ID'] ?? data['aws_access_key_id'] ?? '',
    secretAccessKey: data['AWS_SECRET_ACCESS_KEY'] ?? data['aws_secret_access_key'] ?? '',
    sessionToken: data['AWS_SESSION_TOKEN'] ?? data['aws_session_token'] ?? '',
  };
}

const secretOf = (p: Platform, name: string, namespace = 'tenant-a') =>
  p.core.readNamespacedSecret({ namespace, name });
const requestOf = async (p: Platform, name: string, namespace = 'tenant-a') =>
  (await p.custom.getNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace,
    plural: 'awscredentialsrequests',
    name,
  })) as AWSCredentialsRequest;
const conditionOf = (object: AWSCredentialsRequest, type: string) =>
  object.status?.conditions?.find((condition) => condition.type === type);

async function ready(p: Platform, name: string, namespace = 'tenant-a', timeoutMs?: number) {
  return eventually(async () => {
    const object = await requestOf(p, name, namespace);
    expect(conditionOf(object, 'Ready'), JSON.stringify(object.status)).to.include({ status: 'True' });
    return object;
  }, timeoutMs);
}

/** The upgrade notes' command that lists requests' identities and namespaces (docs/operations.md), run as written. */
async function documentedOneLiner(kubeconfig: string): Promise<string> {
  const doc = await readFile(fileURLToPath(new URL('../../../../docs/operations.md', import.meta.url)), 'utf8');
  const command = /^\s*(kubectl get awscredentialsrequests -A .*)$/m.exec(doc)?.[1];
  if (!command) throw new Error('docs/operations.md has no `kubectl get awscredentialsrequests -A ...` line');
  const bin = await mkdtemp(join(tmpdir(), 'keymaster-kubectl-'));
  await symlink(kubectl133(), join(bin, 'kubectl'));
  const { stdout } = await promisify(execFile)('sh', ['-c', command], {
    env: { PATH: `${bin}:${process.env['PATH'] ?? ''}`, KUBECONFIG: kubeconfig, HOME: bin },
  });
  return stdout;
}

/** The RoleBinding that enables credential vending in a namespace (docs/credentials.md). */
const vending = (namespace: string) => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'RoleBinding',
  metadata: { name: 'keymaster-credential-vending', namespace },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'keymaster-credential-vending' },
  subjects: [{ kind: 'ServiceAccount', name: 'keymaster', namespace: 'keymaster-system' }],
});

const assumedWorkloads = (p: Platform) =>
  p.aws.calls.summary().byCaller['arn:aws:iam::111111111111:user/keymaster-controller']?.['sts:AssumeRole'] ?? 0;

describe('AWSCredentialsRequest controller (kube-emulator, aws-emulator, real SDKs)', function () {
  this.timeout(120_000);

  describe('serving requests', () => {
    let p: Platform;
    before(async () => {
      // The controller's time is the aws-emulator's, so that moving it on renews credentials.
      let emulatorNow: () => number = Date.now;
      p = await startPlatform(
        [
          namespace('tenant-a'),
          namespace('tenant-b'),
          ...identities(['tenant-a']),
          request('env', 'Environment'),
          request('file', 'CredentialsFile'),
          request('cco', 'CloudCredentialOperator'),
        ],
        [],
        { world: world(), clock: { ...realClock, now: () => emulatorNow() } },
      );
      emulatorNow = () => p.aws.clock.nowMs();
    });
    after(() => p.stop());

    it('writes each format, owned and labelled, with a session narrowed by the statements; one session for the three', async () => {
      for (const name of ['env', 'file', 'cco']) {
        const object = await ready(p, name);
        const secret = await secretOf(p, `${name}-aws`);
        expect(secret.metadata?.labels?.[REQUEST_LABEL]).to.equal(name);
        expect(secret.metadata?.ownerReferences?.[0]).to.include({
          kind: 'AWSCredentialsRequest',
          name,
          controller: true,
        });
        expect(secret.metadata?.annotations?.[EXPIRES_ANNOTATION]).to.equal(
          new Date(object.status!.expiration!).toISOString(),
        );
        expect(object.status).to.include({ accountID: '111111111111' });
        expect(object.status?.principalARN).to.match(/assumed-role\/workloads\/workloads$/);
        // The keys are a live session of the role, narrowed by exactly the request's statements (that
        // AWS then refuses the rest is the identity package's and e2e's proof, with the real SDK).
        const keys = keysOf(secret);
        const credential = p.aws.world.directory.credential(keys.accessKeyId);
        expect(credential?.secretAccessKey).to.equal(keys.secretAccessKey);
        expect(credential?.sessionToken).to.equal(keys.sessionToken);
        const session = credential!.principal;
        expect(session.kind).to.equal('assumed-role');
        if (session.kind !== 'assumed-role') return;
        expect(session.role.arn).to.equal(WORKLOADS_ROLE);
        // STS answers whole seconds.
        expect(new Date(object.status!.expiration!).getTime()).to.be.closeTo(session.expiresAtMs, 1_000);
        expect(JSON.stringify(session.sessionPolicies))
          .to.contain('tag:GetResources')
          .and.not.to.contain('TagResources');
      }
      const env = decode(await secretOf(p, 'env-aws'));
      expect(Object.keys(env).sort()).to.deep.equal([
        'AWS_ACCESS_KEY_ID',
        'AWS_SECRET_ACCESS_KEY',
        'AWS_SESSION_TOKEN',
      ]);
      expect(Object.keys(decode(await secretOf(p, 'file-aws')))).to.deep.equal(['credentials']);
      expect(assumedWorkloads(p), 'the three requests ask alike: one AssumeRole').to.equal(1);
      const metrics = await p.controller.metrics.registry.metrics();
      expect(metrics).to.match(
        /keymaster_sts_calls_total\{[^}]*action="AssumeRole"[^}]*requester="AWSCredentialsRequest"\} 1\b/,
      );
    });

    it('sets a hand-edited Secret back and recreates a hand-deleted one', async () => {
      const before = await secretOf(p, 'env-aws');
      await p.core.replaceNamespacedSecret({
        namespace: 'tenant-a',
        name: 'env-aws',
        body: Object.assign(structuredClone(before), {
          data: { AWS_ACCESS_KEY_ID: Buffer.from('AKIAMINE').toString('base64') },
        }),
      });
      await eventually(async () => expect((await secretOf(p, 'env-aws')).data).to.deep.equal(before.data));
      const { metadata } = await secretOf(p, 'file-aws');
      await p.core.deleteNamespacedSecret({ namespace: 'tenant-a', name: 'file-aws' });
      const recreated = await eventually(async () => {
        const secret = await secretOf(p, 'file-aws');
        expect(secret.metadata?.uid).not.to.equal(metadata?.uid);
        return secret;
      });
      expect(keysOf(recreated).accessKeyId).to.equal(keysOf(before).accessKeyId);
    });

    it('renews at half the lifetime, before the credentials in the Secret expire, for every request of the session at once', async () => {
      const first = await ready(p, 'env');
      const firstKeys = keysOf(await secretOf(p, 'env-aws'));
      const calls = assumedWorkloads(p);
      p.aws.clock.advance(1_700);
      // Resyncs (every 2 s) reconcile again: before half of the lifetime, nothing is renewed.
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect(keysOf(await secretOf(p, 'env-aws')).accessKeyId).to.equal(firstKeys.accessKeyId);
      p.aws.clock.advance(120);
      const renewed = await eventually(async () => {
        const object = await requestOf(p, 'env');
        expect(object.status?.lastRenewalTime).not.to.equal(first.status?.lastRenewalTime);
        return object;
      });
      const renewedKeys = keysOf(await secretOf(p, 'env-aws'));
      expect(renewedKeys.accessKeyId).not.to.equal(firstKeys.accessKeyId);
      expect(
        new Date(renewed.status!.lastRenewalTime!).getTime(),
        'renewed while the old ones were valid',
      ).to.be.lessThan(new Date(first.status!.expiration!).getTime());
      expect(new Date(renewed.status!.nextRenewalTime!).getTime()).to.be.greaterThan(p.aws.clock.nowMs());
      await eventually(async () =>
        expect(keysOf(await secretOf(p, 'cco-aws')).accessKeyId).to.equal(renewedKeys.accessKeyId),
      );
      expect(assumedWorkloads(p) - calls, 'one renewal for the three requests').to.equal(1);
    });

    it('never takes over a Secret it does not own', async () => {
      await p.core.createNamespacedSecret({
        namespace: 'tenant-a',
        body: { metadata: { name: 'taken-aws' }, stringData: { mine: 'keep me' } },
      });
      await p.objects.create(request('taken', 'Environment') as unknown as KubernetesObject);
      await eventually(async () => {
        const object = await requestOf(p, 'taken');
        expect(conditionOf(object, 'SecretWritten')).to.include({ status: 'False', reason: 'SecretNotOwned' });
        expect(conditionOf(object, 'Ready')).to.include({ status: 'False' });
      });
      expect(decode(await secretOf(p, 'taken-aws'))).to.deep.equal({ mine: 'keep me' });
    });

    it('deletes the Secret with the request', async () => {
      await p.custom.deleteNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace: 'tenant-a',
        plural: 'awscredentialsrequests',
        name: 'cco',
      });
      await gone(() => secretOf(p, 'cco-aws'));
      await gone(() => requestOf(p, 'cco'));
    });

    it('revokes at once when the namespace loses the identity, and says why; no secret in events or status', async () => {
      const keys = keysOf(await secretOf(p, 'env-aws'));
      const identity = await p.get<{ metadata: object; spec: Record<string, unknown> }>(
        'awsclusterroleidentities',
        'workloads',
      );
      await p.custom.replaceClusterCustomObject({
        group: GROUP,
        version: VERSION,
        plural: 'awsclusterroleidentities',
        name: 'workloads',
        body: { ...identity, spec: { ...identity.spec, allowedNamespaces: { list: ['tenant-b'] } } },
      });
      await eventually(async () => expect((await secretOf(p, 'env-aws')).data ?? {}).to.deep.equal({}));
      const object = await requestOf(p, 'env');
      expect(conditionOf(object, 'PrincipalUsageAllowed')).to.include({
        status: 'False',
        reason: 'PrincipalUsageUnauthorized',
      });
      expect(conditionOf(object, 'SecretWritten')).to.include({ status: 'False', reason: 'CredentialsRevoked' });
      expect(conditionOf(object, 'SecretWritten')?.message).to.contain('may not use AWSClusterRoleIdentity/workloads');
      const events = await eventually(async () => {
        const list = await p.core.listNamespacedEvent({ namespace: 'tenant-a' });
        expect(list.items.map(({ reason }) => reason)).to.include('CredentialsRevoked');
        return list;
      });
      const visible = JSON.stringify([events.items, object.status]);
      for (const secret of [keys.secretAccessKey, keys.sessionToken]) expect(visible).not.to.contain(secret);
    });
  });

  describe('vending is opt-in per identity (credentialVending)', () => {
    let p: Platform;
    const workloads = () =>
      p.get<{ metadata: object; spec: Record<string, unknown> }>('awsclusterroleidentities', 'workloads');
    const replaceWorkloads = async (spec: (current: Record<string, unknown>) => Record<string, unknown>) => {
      const identity = await workloads();
      await p.custom.replaceClusterCustomObject({
        group: GROUP,
        version: VERSION,
        plural: 'awsclusterroleidentities',
        name: 'workloads',
        body: { ...identity, spec: spec(identity.spec) },
      });
    };
    const withoutVending = ({ credentialVending, ...spec }: Record<string, unknown>) => spec;

    before(async () => {
      p = await startPlatform(
        [namespace('tenant-a'), ...identities(['tenant-a']), request('kept', 'Environment')],
        [],
        {
          world: world(),
        },
      );
    });
    after(() => p.stop());

    it('upgrading: a request its identity no longer vends loses its Secret’s data at the next reconcile, saying which identity needs which credentialVending; the documented one-liner finds it', async () => {
      await ready(p, 'kept');
      const served = keysOf(await secretOf(p, 'kept-aws'));
      // The state an upgrade meets: a Secret the old release filled, an identity without credentialVending.
      await p.controller.stop();
      await replaceWorkloads(withoutVending);
      await p.restart();
      await eventually(async () => expect((await secretOf(p, 'kept-aws')).data ?? {}).to.deep.equal({}));
      const refused = await requestOf(p, 'kept');
      const why =
        'AWSClusterRoleIdentity/workloads vends no credentials to workloads: its spec.credentialVending is not set. ' +
        'For namespace "tenant-a" to ask for its credentials, ops add it to spec.credentialVending.allowedNamespaces of ' +
        'AWSClusterRoleIdentity/workloads (credentialVending: {allowedNamespaces: {list: [tenant-a]}}, or a selector); ' +
        'or point spec.identityRef at an identity that vends to "tenant-a".';
      expect(conditionOf(refused, 'PrincipalUsageAllowed')).to.include({
        status: 'False',
        reason: 'VendingNotEnabled',
        message: why,
      });
      expect(conditionOf(refused, 'PrincipalCredentialRetrieved')).to.include({
        status: 'Unknown',
        reason: 'NotAttempted',
      });
      expect(conditionOf(refused, 'SecretWritten')).to.include({
        status: 'False',
        reason: 'CredentialsRevoked',
        message: `Secret kept-aws holds no credentials: ${why}`,
      });
      expect(conditionOf(refused, 'Ready')).to.include({ status: 'False', reason: 'VendingNotEnabled' });
      const events = await eventually(async () => {
        const { items } = await p.core.listNamespacedEvent({ namespace: 'tenant-a' });
        const reasons = items.map(({ reason }) => reason);
        expect(reasons).to.include.members(['VendingNotEnabled', 'CredentialsRevoked']);
        return items;
      });
      expect(events.find(({ reason }) => reason === 'CredentialsRevoked')?.message).to.equal(
        `Credentials removed from Secret kept-aws: ${why}`,
      );
      expect(events.find(({ reason }) => reason === 'VendingNotEnabled')?.message).to.equal(why);
      const visible = JSON.stringify([events, refused.status]);
      for (const secret of [served.secretAccessKey, served.sessionToken]) expect(visible).not.to.contain(secret);

      // Ops list the identities requests use, with their namespaces: what credentialVending must allow.
      expect(await documentedOneLiner(p.kubeconfig)).to.equal('AWSClusterRoleIdentity/workloads\ttenant-a\n');
      const assumed = assumedWorkloads(p);
      await replaceWorkloads((spec) => ({ ...spec, credentialVending: { allowedNamespaces: { list: ['tenant-a'] } } }));
      await ready(p, 'kept');
      expect(keysOf(await secretOf(p, 'kept-aws')).accessKeyId).to.match(/^ASIA/);
      expect(assumedWorkloads(p) - assumed, 'AssumeRole once served again, none while refused').to.equal(1);
    });

    it("stops vending a role at its requests' next reconcile once ops make it another identity's source", async () => {
      await ready(p, 'kept');
      const assumed = assumedWorkloads(p);
      await p.objects.create({
        apiVersion: API_VERSION,
        kind: 'AWSClusterRoleIdentity',
        metadata: { name: 'onwards' },
        spec: {
          roleARN: 'arn:aws:iam::111111111111:role/onwards',
          sourceIdentityRef: { kind: 'AWSClusterRoleIdentity', name: 'workloads' },
          allowedNamespaces: { list: ['tenant-a'] },
        },
      } as KubernetesObject);
      await eventually(async () => expect((await secretOf(p, 'kept-aws')).data ?? {}).to.deep.equal({}));
      const refused = await requestOf(p, 'kept');
      expect(conditionOf(refused, 'PrincipalUsageAllowed')).to.include({
        status: 'False',
        reason: 'SourceIdentityNotVendable',
      });
      expect(conditionOf(refused, 'PrincipalUsageAllowed')?.message).to.contain(
        'AWSClusterRoleIdentity/workloads is the sourceIdentityRef of 1 other identity',
      );
      expect(assumedWorkloads(p)).to.equal(assumed);
    });
  });

  describe('the Secrets of requests, under deploy/rbac', () => {
    const MiB = 1024 * 1024;
    let p: Platform;
    before(async () => {
      p = await startPlatform(
        [
          namespace('tenant-a'),
          namespace('tenant-b'),
          ...identities(['tenant-a', 'tenant-b']),
          vending('tenant-a'),
          request('env', 'Environment'),
          { ...request('other', 'Environment'), metadata: { name: 'other', namespace: 'tenant-b' } },
        ],
        [],
        { world: world(), rbac: true },
      );
    });
    after(() => p.stop());

    it('says SecretAccessNotGranted where it may not watch Secrets, calls no STS, serves the request once the RoleBinding exists, and watches no more after its last request', async () => {
      await ready(p, 'env');
      const refused = await eventually(async () => {
        const object = await requestOf(p, 'other', 'tenant-b');
        expect(conditionOf(object, 'SecretWritten')).to.include({ status: 'False', reason: 'SecretAccessNotGranted' });
        return object;
      });
      expect(conditionOf(refused, 'Ready')).to.include({ status: 'False', reason: 'SecretAccessNotGranted' });
      expect(conditionOf(refused, 'SecretWritten')?.message).to.include(
        'kubectl create rolebinding keymaster-credential-vending --namespace tenant-b --clusterrole keymaster-credential-vending --serviceaccount keymaster-system:keymaster',
      );
      expect(assumedWorkloads(p), "tenant-a's session only").to.equal(1);
      await eventually(async () => {
        const events = await p.core.listNamespacedEvent({ namespace: 'tenant-b' });
        expect(events.items.map(({ reason }) => reason)).to.include('SecretAccessNotGranted');
      });

      await p.objects.create(vending('tenant-b'));
      // The refused watch is retried with a backoff of up to 30 s.
      await ready(p, 'other', 'tenant-b', 40_000);
      expect(Object.keys((await secretOf(p, 'other-aws', 'tenant-b')).data ?? {})).to.have.length(3);
      expect(assumedWorkloads(p), "tenant-b's own session").to.equal(2);

      await p.custom.deleteNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace: 'tenant-b',
        plural: 'awscredentialsrequests',
        name: 'other',
      });
      await gone(() => secretOf(p, 'other-aws', 'tenant-b'));
      const secrets = p.controller.keymaster.credentialRequests.secrets;
      await eventually(() => expect(secrets.access('tenant-b'), 'no watch without requests').to.equal('Pending'));
      expect(secrets.access('tenant-a')).to.equal('Granted');
    });

    it('keeps no data of 24 labelled Secrets of 1 MiB, nothing of those no request controls, and tells a hand edit by digest', async () => {
      const served = await secretOf(p, 'env-aws');
      const owner = served.metadata!.ownerReferences!;
      const big = (name: string, label: string, ownerReferences?: typeof owner) => ({
        metadata: { name, labels: { [REQUEST_LABEL]: label }, ...(ownerReferences ? { ownerReferences } : {}) },
        data: { padding: Buffer.alloc(MiB - 1024, 'k').toString('base64') },
      });
      // A tenant's Secrets that name its own request, with or without its owner, or a request that does not exist.
      const decoys = Array.from({ length: 24 }, (_, index) =>
        index % 3 === 0
          ? big(`forged-${index}`, 'env', owner)
          : index % 3 === 1
            ? big(`labelled-${index}`, 'env')
            : big(`ghost-${index}`, 'ghost'),
      );
      for (const body of decoys) await p.core.createNamespacedSecret({ namespace: 'tenant-a', body });
      // A hand edit adds 1 MiB to the request's own Secret: set back, told by the digest.
      await p.core.replaceNamespacedSecret({
        namespace: 'tenant-a',
        name: 'env-aws',
        body: Object.assign(structuredClone(served), {
          data: { ...served.data, padding: Buffer.alloc(MiB - 1024, 'k').toString('base64') },
        }),
      });
      await eventually(async () => expect((await secretOf(p, 'env-aws')).data).to.deep.equal(served.data));
      await eventually(async () => {
        const events = await p.core.listNamespacedEvent({ namespace: 'tenant-a' });
        expect(events.items.map(({ reason }) => reason)).to.include('SecretRestored');
      });

      const cache = p.controller.keymaster.credentialRequests.secrets;
      for (const { metadata } of decoys)
        expect(cache.get(metadata.name, 'tenant-a'), metadata.name).to.equal(undefined);
      const kept = cache.get('env-aws', 'tenant-a');
      expect(kept).to.not.have.property('data');
      expect(kept?.metadata.resourceVersion).to.equal((await secretOf(p, 'env-aws')).metadata?.resourceVersion);
      expect(JSON.stringify(kept).length).to.be.below(1000);
      // The tenant's Secrets are its own: none touched.
      const listed = await p.core.listNamespacedSecret({ namespace: 'tenant-a', labelSelector: REQUEST_LABEL });
      expect(listed.items).to.have.length(25);
    });
  });

  describe('WebIdentity mode', () => {
    const STS = 'sts.amazonaws.com';
    const REPORTS_ROLE = 'arn:aws:iam::333333333333:role/reports';
    let p: Platform;
    // The role trusts only tenant-a's ServiceAccount `reports`, through the kube-emulator's issuer.
    const webWorld = (kube: KubeEmulator): World => {
      const issuer = kube.serviceAccountIssuer.replace('https://', '');
      return {
        accounts: [
          { id: '111111111111', users: [{ name: 'keymaster-controller', accessKeys: [CONTROLLER_KEYS], allow: [] }] },
          {
            id: '333333333333',
            oidcProviders: [
              { url: kube.serviceAccountIssuer, clientIds: [STS], discovery: { ca: kube.caCertificate! } },
            ],
            roles: [
              {
                name: 'reports',
                trust: [
                  {
                    federated: `arn:aws:iam::333333333333:oidc-provider/${issuer}`,
                    conditions: { StringEquals: { [`${issuer}:sub`]: 'system:serviceaccount:tenant-a:reports' } },
                  },
                ],
                allow: ['tag:GetResources'],
              },
            ],
          },
        ],
      };
    };
    const webIdentity = (name: string, serviceAccount: Record<string, string>) => ({
      apiVersion: API_VERSION,
      kind: 'AWSClusterWebIdentity',
      metadata: { name },
      spec: {
        roleARN: REPORTS_ROLE,
        serviceAccount,
        allowedNamespaces: { list: ['tenant-a'] },
        credentialVending: { allowedNamespaces: { list: ['tenant-a'] } },
      },
    });
    const webRequest = (name: string, identity: string, format: string) => {
      const object = request(name, format, {
        mode: 'WebIdentity',
        identityRef: { kind: 'AWSClusterWebIdentity', name: identity },
      });
      delete object.spec.statements;
      delete object.spec.durationSeconds;
      return object;
    };

    before(async () => {
      p = await startPlatform(
        [
          namespace('tenant-a'),
          { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'reports', namespace: 'tenant-a' } },
          webIdentity('reports', { name: 'reports' }),
          webIdentity('platform', { name: 'keymaster', namespace: 'Controller' }),
          webRequest('web', 'reports', 'Environment'),
          webRequest('web-file', 'reports', 'CredentialsFile'),
          webRequest('web-platform', 'platform', 'Environment'),
        ],
        [],
        { world: webWorld, tls: true },
      );
    });
    after(() => p.stop());

    it('writes the role and the token path, no secret material, once AWS accepted the namespace ServiceAccount', async () => {
      const object = await ready(p, 'web');
      expect(object.status?.principalARN).to.match(/^arn:aws:sts::333333333333:assumed-role\/reports\//);
      expect(object.status?.expiration).to.equal(undefined);
      const secret = await secretOf(p, 'web-aws');
      expect(secret.metadata?.annotations?.[EXPIRES_ANNOTATION]).to.equal(undefined);
      expect(decode(secret)).to.deep.equal({
        AWS_ROLE_ARN: REPORTS_ROLE,
        AWS_WEB_IDENTITY_TOKEN_FILE: '/var/run/secrets/keymaster.dev/serviceaccount/token',
        AWS_ROLE_SESSION_NAME: 'keymaster-reports',
      });
      await ready(p, 'web-file');
      expect(decode(await secretOf(p, 'web-file-aws'))['config']).to.equal(
        `[default]\nrole_arn = ${REPORTS_ROLE}\nweb_identity_token_file = /var/run/secrets/keymaster.dev/serviceaccount/token\nrole_session_name = keymaster-reports\n`,
      );
      expect(
        p.aws.world.sessions().filter(({ roleArn }) => roleArn === REPORTS_ROLE),
        'checked once per namespace',
      ).to.have.length(1);
    });

    it("refuses a web identity whose token is of the controller's namespace, whatever its credentialVending says", async () => {
      const object = await eventually(async () => {
        const found = await requestOf(p, 'web-platform');
        expect(conditionOf(found, 'PrincipalUsageAllowed')).to.include({
          status: 'False',
          reason: 'ControllerNamespaceTokenNotVendable',
        });
        return found;
      });
      expect(conditionOf(object, 'Ready')).to.include({
        status: 'False',
        reason: 'ControllerNamespaceTokenNotVendable',
      });
      expect(conditionOf(object, 'PrincipalUsageAllowed')?.message).to.contain(
        "AWSClusterWebIdentity/platform takes its token in the controller's namespace",
      );
      expect(await secretOf(p, 'web-platform-aws').catch(() => undefined)).to.equal(undefined);
      expect(
        p.aws.calls
          .summary()
          .recent.filter(({ detail }) => detail?.['subject'] === 'system:serviceaccount:keymaster-system:keymaster'),
        'AssumeRoleWithWebIdentity with a token of the controller namespace',
      ).to.deep.equal([]);
    });
  });

  describe('what one namespace may cost: the credential set cap and the STS budget', () => {
    let p: Platform;
    const distinct = (name: string, namespace = 'tenant-a') => {
      const object = request(name, 'Environment', {
        statements: [{ effect: 'Allow', actions: [`ec2:Describe${name}`], resources: ['*'] }],
      });
      return { ...object, metadata: { ...object.metadata, namespace } } as unknown as KubernetesObject;
    };
    const metric = (name: string) => p.controller.metrics.registry.getSingleMetricAsString(name);

    before(async () => {
      p = await startPlatform(
        [namespace('tenant-a'), namespace('tenant-b'), ...identities(['tenant-a', 'tenant-b'])],
        ['--max-credential-sets-per-namespace=3', '--sts-rate-per-namespace=1,4'],
        { world: world() },
      );
      // Created one by one: the oldest three (then by name) are the ones served.
      for (const name of ['r0', 'r1', 'r2', 'r3', 'r4', 'r5']) await p.objects.create(distinct(name));
    });
    after(() => p.stop());

    it('serves the sets of the oldest requests up to the cap; the others are refused, say why, and cost no STS call', async () => {
      for (const name of ['r0', 'r1', 'r2']) await ready(p, name);
      for (const name of ['r3', 'r4', 'r5']) {
        const refused = await eventually(async () => {
          const object = await requestOf(p, name);
          expect(conditionOf(object, 'PrincipalCredentialRetrieved')).to.include({
            status: 'False',
            reason: 'CredentialSetCapExceeded',
          });
          return object;
        });
        expect(conditionOf(refused, 'Ready')).to.include({ status: 'False', reason: 'CredentialSetCapExceeded' });
        const message = conditionOf(refused, 'PrincipalCredentialRetrieved')!.message;
        expect(message)
          .to.contain('more distinct credential sets than the 3')
          .and.contain('--max-credential-sets-per-namespace=3');
        expect(message).to.contain('oldest requests').and.contain('no STS call was made');
        const secret = await secretOf(p, `${name}-aws`).catch(() => undefined);
        expect(Object.keys(secret?.data ?? {}), 'no credentials written').to.deep.equal([]);
      }
      expect(assumedWorkloads(p), 'one AssumeRole per served set').to.equal(3);
      expect(await metric('keymaster_credentials_requests_over_cap')).to.contain('{namespace="tenant-a"} 3');
    });

    it('keeps the STS calls of a namespace within its budget: work past it waits its turn, another namespace does not', async () => {
      // Three sets, each an AssumeRole and a GetCallerIdentity: 6 calls against a burst of 4.
      expect(await metric('keymaster_sts_budget_waits_total')).to.match(/\{namespace="tenant-a"\} [1-9]/);
      expect(await metric('keymaster_namespace_sts_calls_total')).to.contain('{namespace="tenant-a"} 6');
      // In every stretch of the call log: at most the burst, and a call a second (one more for arrival jitter).
      const times = p.aws.calls
        .summary()
        .recent.filter(({ action }) => action === 'sts:AssumeRole' || action === 'sts:GetCallerIdentity')
        .map(({ time }) => Date.parse(time));
      expect(times).to.have.length(6);
      for (const [i, from] of times.entries())
        for (const [j, to] of times.entries())
          if (j > i) expect(j - i + 1, `calls ${i} to ${j}`).to.be.at.most(4 + (to - from) / 1000 + 1);

      await p.objects.create(distinct('b0', 'tenant-b'));
      await eventually(async () =>
        expect(conditionOf(await requestOf(p, 'b0', 'tenant-b'), 'Ready')).to.include({ status: 'True' }),
      );
      expect(await metric('keymaster_sts_budget_waits_total')).not.to.contain('tenant-b');
      expect(await metric('keymaster_credential_sets')).to.contain('{namespace="tenant-b",state="pinned"} 1');
    });

    it('serves the next oldest once a served request is deleted, and releases its set', async () => {
      await p.objects.delete(distinct('r0'));
      await ready(p, 'r3');
      expect(conditionOf(await requestOf(p, 'r4'), 'PrincipalCredentialRetrieved')).to.include({
        reason: 'CredentialSetCapExceeded',
      });
      await eventually(async () =>
        expect(await metric('keymaster_credentials_requests_over_cap')).to.contain('{namespace="tenant-a"} 2'),
      );
      expect(await metric('keymaster_credential_sets')).to.contain('{namespace="tenant-a",state="pinned"} 3');
      expect(await metric('keymaster_credential_sets')).to.contain('{namespace="tenant-a",state="unpinned"} 1');
    });
  });
});
