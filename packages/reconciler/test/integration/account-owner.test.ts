import { API_VERSION, GROUP, VERSION, type AWSClusterStaticIdentity } from '@keymaster/api';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { expect } from 'chai';
import { CLAIMED_ACCOUNT, SHARED_WITH } from '../../src/awscluster/account-owner.js';
import { parseRunFlags } from '../../src/cli/flags.js';
import { startController } from '../../src/cli/run.js';
import { createControllerLogger } from '../../src/logging.js';
import { CONTROLLER_KEYS, TENANT_KEYS, condition, eventually, startPlatform, type Platform } from './harness.js';
import { PassThrough } from 'node:stream';

const STATIC = 'AWSClusterStaticIdentity';
const TENANT = 'keymaster.dev/tenant';
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** Two tenants' static identities whose keys are of one AWS account (222222222222): a mistake, or malice. */
const tenant = (name: string) => [
  { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { [TENANT]: name } } },
  {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `${name}-keys`, namespace: 'keymaster-system' },
    stringData: { AccessKeyID: TENANT_KEYS.accessKeyId, SecretAccessKey: TENANT_KEYS.secretAccessKey },
  },
  {
    apiVersion: API_VERSION,
    kind: STATIC,
    metadata: { name, labels: { [TENANT]: name } },
    spec: { secretRef: `${name}-keys`, allowedNamespaces: { list: [name] } },
  },
];
const cluster = (namespace: string, name: string) => ({
  apiVersion: API_VERSION,
  kind: 'AWSCluster',
  metadata: { name, namespace },
  spec: { region: 'us-west-2', identityRef: { kind: STATIC, name: namespace } },
});

describe('accounts owned by one tenant, against both emulators', function () {
  this.timeout(60_000);
  let platform: Platform;
  before(async () => {
    platform = await startPlatform([...tenant('tenant-a'), cluster('tenant-a', 'prod'), ...tenant('tenant-b')]);
  });
  after(() => platform.stop());

  const identity = (name: string) => platform.get<AWSClusterStaticIdentity>('awsclusterstaticidentities', name);
  const annotate = (name: string, annotations: Record<string, string | null>) =>
    platform.custom.patchClusterCustomObject(
      {
        group: GROUP,
        version: VERSION,
        plural: 'awsclusterstaticidentities',
        name,
        body: { metadata: { annotations } },
      },
      mergePatch,
    );

  it("claims the account for the tenant of the first identity that resolves into it, on the identity's annotations", async () => {
    await eventually(async () =>
      expect(condition(await platform.cluster('tenant-a', 'prod'), 'Ready')?.status).to.equal('True'),
    );
    expect((await identity('tenant-a')).metadata.annotations).to.include({ [CLAIMED_ACCOUNT]: '222222222222' });
  });

  it("refuses another tenant's identity resolving into the claimed account: a condition and an event naming both identities, nothing tagged", async () => {
    await platform.objects.create(cluster('tenant-b', 'dev'));
    const message =
      'AWSClusterStaticIdentity/tenant-b (tenant tenant-b) resolves into account 222222222222, which ' +
      'AWSClusterStaticIdentity/tenant-a (tenant tenant-a) claimed: an account belongs to one tenant, so nothing is ' +
      `tagged with it. If the account is shared on purpose, the platform adds tenant-b to the annotation ${SHARED_WITH} ` +
      'of AWSClusterStaticIdentity/tenant-a.';
    const refused = await eventually(async () => {
      const found = await platform.cluster('tenant-b', 'dev');
      expect(condition(found, 'Ready')).to.include({ status: 'False', reason: 'AccountClaimed', message });
      return found;
    });
    expect(condition(refused, 'TagsInSync')).to.include({ status: 'Unknown', reason: 'AccountClaimed' });
    expect(refused.status?.tagging, 'no tag step').to.equal(undefined);
    expect((await identity('tenant-b')).metadata.annotations?.[CLAIMED_ACCOUNT], 'no second claim').to.equal(undefined);
    await eventually(async () => {
      const events = await platform.core.listNamespacedEvent({ namespace: 'tenant-b' });
      expect(events.items.find(({ reason }) => reason === 'AccountClaimed')?.message).to.equal(message);
    });
  });

  it('keeps the claim across a restart of the controller (the memory is on the identity, not in the process)', async () => {
    await platform.controller.stop();
    const flags = parseRunFlags([
      `--kubeconfig=${platform.kubeconfig}`,
      '--metrics-bind-address=0',
      '--health-probe-bind-address=0',
      '--sync-period=2s',
    ]);
    platform.controller = await startController(flags, {
      aws: { endpoint: platform.aws.url, credentials: () => Promise.resolve(CONTROLLER_KEYS) },
      logger: createControllerLogger('error', 'json', new PassThrough().resume()),
    });
    await platform.objects.create(cluster('tenant-b', 'again'));
    await eventually(async () =>
      expect(condition(await platform.cluster('tenant-b', 'again'), 'Ready')).to.include({ reason: 'AccountClaimed' }),
    );
  });

  it('lets another tenant in once the platform shares the account with it', async () => {
    await annotate('tenant-a', { [SHARED_WITH]: 'tenant-b' });
    await eventually(async () =>
      expect(condition(await platform.cluster('tenant-b', 'dev'), 'PrincipalUsageAllowed')?.status).to.equal('True'),
    );
  });
});
