import { PassThrough } from 'node:stream';
import { API_VERSION, type AWSClusterRoleIdentity } from '@keymaster/api';
import type { World } from '@keymaster/aws-emulator';
import { expect } from 'chai';
import { parseRunFlags } from '../../src/cli/flags.js';
import { startController } from '../../src/cli/run.js';
import { createControllerLogger } from '../../src/logging.js';
import { CONTROLLER_KEYS, TEAM_A, condition, eventually, startPlatform, type Platform } from './harness.js';

const ROLE_ARN = 'arn:aws:iam::111111111111:role/tenant';
const ROLE = { kind: 'AWSClusterRoleIdentity', name: 'tenant' };

const world = (): World => ({
  accounts: [
    {
      id: '111111111111',
      users: [{ name: 'keymaster-controller', accessKeys: [CONTROLLER_KEYS], allow: ['sts:AssumeRole'] }],
      roles: [
        {
          name: 'tenant',
          trust: [{ principal: 'arn:aws:iam::111111111111:user/keymaster-controller' }],
          allow: ['tag:*', 'ec2:CreateTags', 'ec2:DescribeTags', 'sts:GetCallerIdentity'],
        },
      ],
      resources: [{ arn: 'arn:aws:ec2:us-west-2:111111111111:instance/i-0000000000000000a', tags: {} }],
    },
  ],
});

const KUBE_WRITES = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

const objects = [
  ...TEAM_A,
  {
    apiVersion: API_VERSION,
    kind: ROLE.kind,
    metadata: { name: ROLE.name },
    spec: { roleARN: ROLE_ARN, allowedNamespaces: { list: ['team-a'] } },
  },
  {
    apiVersion: API_VERSION,
    kind: 'AWSCluster',
    metadata: { name: 'prod', namespace: 'team-a' },
    spec: { region: 'us-west-2', identityRef: ROLE },
  },
];

describe("a role identity's status, against both emulators", function () {
  this.timeout(60_000);
  let platform: Platform;
  // No periodic resync during the test: whatever reaches the status reaches it when it happens.
  before(async () => {
    platform = await startPlatform([], ['--sync-period', '1h'], { world: world() });
  });
  after(() => platform.stop());

  const role = () => platform.get<AWSClusterRoleIdentity>('awsclusterroleidentities', ROLE.name);

  it("shows the session a cluster's reconcile assumed once it is assumed, without waiting for a resync", async () => {
    // AWS throttles AssumeRole at first: the cluster is refused (and retries), the identity is
    // reconciled meanwhile and counts its user, with no session to show yet.
    const throttled = platform.aws.faults.add({ action: 'sts:AssumeRole', errorCode: 'Throttling' });
    for (const object of objects) await platform.objects.create(object);
    await eventually(async () =>
      expect(condition(await platform.cluster('team-a', 'prod'), 'PrincipalCredentialRetrieved')?.status).to.equal(
        'False',
      ),
    );
    const counted = await eventually(async () => {
      const found = await role();
      expect(found.status?.clusterCount).to.equal(1);
      return found;
    });
    expect(counted.status?.lastAssumeRoleTime, 'nothing assumed yet').to.equal(undefined);

    platform.aws.faults.remove(throttled.id);
    await eventually(async () =>
      expect(condition(await platform.cluster('team-a', 'prod'), 'Ready')?.status).to.equal('True'),
    );
    const shown = await eventually(async () => {
      const found = await role();
      expect(found.status?.lastAssumeRoleTime).to.be.a('string');
      return found;
    });
    expect(shown.status).to.include({
      accountID: '111111111111',
      principalARN: 'arn:aws:sts::111111111111:assumed-role/tenant/keymaster-tenant',
    });
  });

  it('a restarted controller shows its new session at once; its periodic resyncs then write nothing', async function () {
    this.timeout(180_000);
    const before = (await role()).status?.lastAssumeRoleTime;
    await platform.controller.stop();
    const flags = parseRunFlags([
      `--kubeconfig=${platform.kubeconfig}`,
      '--metrics-bind-address=0',
      '--health-probe-bind-address=0',
      '--sync-period=1s',
    ]);
    platform.controller = await startController(flags, {
      aws: { endpoint: platform.aws.url, credentials: () => Promise.resolve(CONTROLLER_KEYS) },
      logger: createControllerLogger('error', 'json', new PassThrough().resume()),
    });
    // A new process assumes the role again: a session that really is new, so written once.
    await eventually(async () => expect((await role()).status?.lastAssumeRoleTime).to.not.equal(before));

    const reconciles = async (controller: string) =>
      (await platform.controller.metrics.runtime.reconcileTotal.get()).values
        .filter(({ labels }) => labels.controller === controller)
        .reduce((sum, { value }) => sum + value, 0);
    // The new process's first reconciles may still be writing (its cluster's status follows its tag
    // work): once they are done, a window of two resyncs of each (a cluster's resync is two reconciles:
    // one queues its tag work, one takes its end) writes nothing. Resyncs that always wrote never pass.
    await eventually(async () => {
      platform.kube.stats.reset();
      const start = { clusters: await reconciles('awscluster'), roles: await reconciles('awsclusterroleidentity') };
      await eventually(async () => {
        expect(await reconciles('awscluster')).to.be.at.least(start.clusters + 4);
        expect(await reconciles('awsclusterroleidentity')).to.be.at.least(start.roles + 2);
      }, 30_000);
      const writes = platform.kube.stats.requests().filter(({ verb }) => KUBE_WRITES.has(verb));
      expect(writes, 'resyncs with nothing renewed').to.deep.equal([]);
    }, 120_000);
  });
});
