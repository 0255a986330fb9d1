import { expect } from 'chai';
import type { AWSCluster } from '@keymaster/api';
import {
  CONTROLLER_KEY,
  CONTROLLER_USER,
  MANAGEMENT,
  TAGGER,
  accessKey,
  clusterResources,
  controllerUser,
  roleArn,
  tenantRole,
} from './support/aws-world.js';
import { eventually } from './support/eventually.js';
import { condition, isReady } from './support/kube.js';
import {
  awsCluster,
  controllerIdentity,
  keysSecret,
  namespace,
  roleIdentity,
  roleRef,
  staticIdentity,
  staticRef,
} from './support/objects.js';
import { startScenario, stopScenarios, type Scenario } from './support/scenario.js';

const TENANT_A = '222222222222';
const TENANT_B = '333333333333';
const TENANT_A_KEY = accessKey('process/tenant-a');
/** Keys AWS does not know: the cluster using them is refused by AWS, with the key ID in the call. */
const UNKNOWN_KEY = accessKey('process/unknown');
const SECRETS = [CONTROLLER_KEY, TENANT_A_KEY, UNKNOWN_KEY].map((key) => key.secretAccessKey);
/** How the aws-emulator's session tokens start (as AWS's do). */
const SESSION_TOKEN_PREFIX = 'IQoJb3JpZ2lu';

describe('the keymaster run process', function () {
  let scenario: Scenario;

  before(async function () {
    scenario = await startScenario({
      world: {
        accounts: [
          {
            id: MANAGEMENT,
            users: [controllerUser(TAGGER)],
            resources: clusterResources(MANAGEMENT, 'us-east-1', 'web', 2),
          },
          {
            id: TENANT_A,
            users: [{ name: 'tenant-a-automation', accessKeys: [TENANT_A_KEY], allow: TAGGER }],
            resources: clusterResources(TENANT_A, 'us-west-2', 'payments', 2),
          },
          {
            id: TENANT_B,
            roles: [tenantRole('tenant-b-admin', CONTROLLER_USER)],
            resources: clusterResources(TENANT_B, 'eu-west-1', 'analytics', 2),
          },
        ],
      },
      objects: [
        namespace('ops'),
        namespace('tenant-a'),
        namespace('tenant-b'),
        controllerIdentity({ list: ['ops', 'tenant-b'] }),
        keysSecret('tenant-a-keys', TENANT_A_KEY),
        keysSecret('unknown-keys', UNKNOWN_KEY),
        staticIdentity('tenant-a', 'tenant-a-keys', { list: ['tenant-a'] }),
        staticIdentity('unknown', 'unknown-keys', { list: ['tenant-a'] }),
        roleIdentity('tenant-b', {
          roleARN: roleArn(TENANT_B, 'tenant-b-admin'),
          allowedNamespaces: { list: ['tenant-b'] },
        }),
        awsCluster('ops', 'web', { region: 'us-east-1', additionalTags: { team: 'ops' } }),
        awsCluster('tenant-a', 'payments', {
          region: 'us-west-2',
          identityRef: staticRef('tenant-a'),
          additionalTags: { team: 'payments' },
        }),
        awsCluster('tenant-a', 'rejected', { region: 'us-west-2', identityRef: staticRef('unknown') }),
        awsCluster('tenant-b', 'analytics', {
          region: 'eu-west-1',
          identityRef: roleRef('tenant-b'),
          additionalTags: { team: 'analytics' },
        }),
      ],
      syncPeriod: '2s',
      args: ['--log-level', 'debug'],
    });
    await eventually(async () => {
      const clusters = await scenario.kube.clusters();
      const ready = clusters.filter(isReady).map(({ metadata }) => metadata.name);
      expect(ready).to.have.members(['web', 'payments', 'analytics']);
      const rejected = clusters.find(({ metadata }) => metadata.name === 'rejected')!;
      expect(condition(rejected, 'PrincipalCredentialRetrieved')).to.include({
        status: 'False',
        reason: 'CredentialsRejected',
      });
    });
  });

  after(stopScenarios);

  it('answers /healthz and /readyz', async function () {
    for (const path of ['/healthz', '/readyz']) {
      const response = await fetch(`${scenario.controller.probesUrl}${path}`);
      expect(response.status, path).to.equal(200);
      expect(await response.text(), path).to.equal('ok');
    }
  });

  it("serves controller-runtime's metrics and Keymaster's on /metrics", async function () {
    const { controller } = scenario;
    const text = await controller.metrics();
    for (const name of [
      'controller_runtime_reconcile_total',
      'controller_runtime_reconcile_errors_total',
      'controller_runtime_reconcile_time_seconds_bucket',
      'controller_runtime_max_concurrent_reconciles',
      'controller_runtime_active_workers',
      'workqueue_depth',
      'workqueue_adds_total',
      'workqueue_queue_duration_seconds_bucket',
      'workqueue_work_duration_seconds_bucket',
      'workqueue_retries_total',
      'keymaster_sts_calls_total',
      'keymaster_credential_cache_lookups_total',
      'keymaster_aws_calls_total',
      'keymaster_drifted_resources',
      'process_cpu_seconds_total',
    ])
      expect(text, name).to.match(new RegExp(`^${name}[{ ]`, 'm'));
    expect(
      await controller.metric('controller_runtime_max_concurrent_reconciles', { controller: 'awscluster' }),
    ).to.equal(10);
    expect(
      await controller.metric('controller_runtime_reconcile_total', { controller: 'awscluster', result: 'success' }),
    ).to.be.greaterThan(0);
    expect(
      await controller.metric('keymaster_sts_calls_total', { action: 'AssumeRole', outcome: 'success' }),
    ).to.be.greaterThan(0);
    // The AWS calls the controller counted are the calls AWS saw: every GetResources and CreateTags.
    for (const [operation, action] of [
      ['GetResources', 'tag:GetResources'],
      ['CreateTags', 'ec2:CreateTags'],
    ] as const) {
      expect(await controller.metric('keymaster_aws_calls_total', { operation }), operation).to.be.greaterThan(0);
      expect(scenario.aws.count(action), action).to.be.greaterThan(0);
    }
  });

  it('logs JSON lines, with cluster, namespace and reconcile ID on the lines of a reconcile', function () {
    const { controller } = scenario;
    expect(controller.output.length).to.be.greaterThan(0);
    for (const line of controller.output) expect(() => JSON.parse(line) as unknown, line).not.to.throw();
    for (const line of controller.logs)
      expect(line, JSON.stringify(line)).to.include.keys('level', 'message', 'timestamp');
    const reconciles = controller.logs.filter((line) => 'reconcileID' in line);
    expect(reconciles.map((line) => line['cluster'])).to.include.members(['web', 'payments', 'rejected', 'analytics']);
    for (const line of reconciles) {
      expect(line['namespace'], JSON.stringify(line)).to.be.a('string').and.not.be.empty;
      expect(line['cluster'], JSON.stringify(line)).to.be.a('string').and.not.be.empty;
    }
    const refused = reconciles.find((line) => line['cluster'] === 'rejected' && line.message === 'identity refused');
    expect(refused, 'the refused cluster is logged').to.include({ namespace: 'tenant-a', level: 'warn' });
  });

  it('never shows a secret key or session token in logs, events or conditions', async function () {
    const { controller, kube } = scenario;
    const clusters = await kube.clusters();
    const events = (
      await Promise.all(clusters.map(({ metadata }) => kube.events(metadata.namespace!, metadata.name!)))
    ).flat();
    expect(events.length).to.be.greaterThan(0);
    const texts = {
      logs: controller.output.join('\n'),
      events: events.map((event) => `${event.reason ?? ''} ${event.message ?? ''}`).join('\n'),
      conditions: clusters.map((cluster: AWSCluster) => JSON.stringify(cluster.status?.conditions)).join('\n'),
    };
    // The refused keys' ID may be named (it is not secret); the secret that goes with it never.
    expect(texts.conditions).to.include('InvalidClientTokenId');
    for (const [where, text] of Object.entries(texts)) {
      for (const secret of SECRETS) expect(text, where).not.to.include(secret);
      expect(text, where).not.to.include(SESSION_TOKEN_PREFIX);
    }
  });

  it('exits 0 on SIGTERM, after saying it stops', async function () {
    const exit = await scenario.controller.stop('SIGTERM');
    expect(exit).to.deep.equal({ code: 0, signal: null });
    expect(scenario.controller.logged('stopping')).to.have.length(1);
  });
});
