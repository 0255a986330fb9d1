import type { ApiException } from '@kubernetes/client-node';
import { CoreV1Api, CustomObjectsApi, type CoreV1Event } from '@kubernetes/client-node';
import { GROUP, VERSION, type AWSCluster } from '@keymaster/api';
import { expect } from 'chai';
import type { RunningController } from '../../src/cli/run.js';
import type { Emulators } from '@keymaster/testenv';
import { startExamples, type ExamplesPlatform } from '../integration/examples.js';
import { eventually } from '../integration/harness.js';

const cluster = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: `${GROUP}/${VERSION}`,
  kind: 'AWSCluster',
  metadata: { name, namespace: 'tenant-a' },
  spec: { identityRef: { kind: 'AWSClusterStaticIdentity', name: 'tenant-a' }, ...spec },
});

describe('AWSCluster input a user trips on, against the kube-emulator and the controller', function () {
  this.timeout(120_000);
  let platform: ExamplesPlatform;
  let emulators: Emulators;
  let controller: RunningController;
  let custom: CustomObjectsApi;
  const create = (body: object) =>
    custom.createNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: 'tenant-a',
      plural: 'awsclusters',
      body,
    });
  /** The API server's refusal of a create: its code and message. */
  const refusal = async (body: object) => {
    const error = await create(body).then(
      () => expect.fail('created'),
      (failure: unknown) => failure as ApiException<string>,
    );
    return { code: error.code, message: (JSON.parse(error.body) as { message: string }).message };
  };

  before(async () => {
    platform = await startExamples('hints');
    emulators = platform.emulators;
    custom = emulators.kubeConfig.makeApiClient(CustomObjectsApi);
    controller = await platform.startController();
  });
  after(async () => {
    await controller.stop();
    await platform.stop();
  });

  it('refuses an ownership key in additionalTags at admission, instead of dropping it later', async () => {
    const { code, message } = await refusal(
      cluster('owned', { region: 'us-west-2', additionalTags: { 'kubernetes.io/cluster/payments-prod': 'owned' } }),
    );
    expect(code).to.equal(422);
    expect(message).to.equal(
      'AWSCluster.infrastructure.keymaster.dev "owned" is invalid: spec.additionalTags: Invalid value: tag keys under kubernetes.io/, sigs.k8s.io/, openshift.io/, keymaster.dev/ (and their subdomains, in any case) are reserved for the platform: ownership tags such as kubernetes.io/cluster/<name> are set by the tools that create the resources, and Keymaster never writes them; choose a key under your own domain, e.g. example.com/team',
    );
  });

  it('refuses a region that AWS has not: us-west-22', async () => {
    const { code, message } = await refusal(cluster('typo', { region: 'us-west-22' }));
    expect(code).to.equal(422);
    expect(message).to.match(
      /^AWSCluster\.infrastructure\.keymaster\.dev "typo" is invalid: spec\.region: Invalid value: "us-west-22": spec\.region in body should match '\^\(af\|ap\|/,
    );
  });

  it('keeps a cluster with nothing found Ready, and says where it looked and what to check (condition, Normal event)', async () => {
    // tenant-a's account has resources in us-west-2 only.
    await create(cluster('empty', { region: 'ap-south-1', clusterName: 'payments-prod' }));
    const found = await eventually(async () => {
      const item = (await custom.getNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace: 'tenant-a',
        plural: 'awsclusters',
        name: 'empty',
      })) as AWSCluster;
      expect(item.status?.conditions?.find(({ type }) => type === 'Ready')?.status).to.equal('True');
      return item;
    }, 60_000);
    const message =
      'No resource found with the ownership tags of cluster name "payments-prod" (sigs.k8s.io/cluster-api-provider-aws/cluster/payments-prod, kubernetes.io/cluster/payments-prod) nor elbv2.k8s.aws/cluster=payments-prod in ap-south-1 of account 222222222222: nothing to tag. If the cluster has resources, check spec.region and spec.clusterName (default: metadata.name)';
    expect(found.status?.conditions?.find(({ type }) => type === 'TagsInSync')).to.include({
      status: 'True',
      reason: 'TagsInSync',
      message,
    });
    expect(found.status?.tagging?.summary).to.equal('0/0');
    const events = await eventually(async () => {
      const { items } = await emulators.kubeConfig
        .makeApiClient(CoreV1Api)
        .listNamespacedEvent({ namespace: 'tenant-a', fieldSelector: 'involvedObject.name=empty' });
      const hints = items.filter(({ reason }: CoreV1Event) => reason === 'NoResourcesFound');
      expect(hints).to.have.length(1);
      return hints;
    });
    expect(events[0]).to.include({ type: 'Normal', message });
  });
});
