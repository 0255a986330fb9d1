import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { startKubeEmulator, type KubeEmulator } from '@keymaster/kube-emulator';
import { expect } from 'chai';
import { EventRecorder } from '../../src/kube/events.js';

describe('EventRecorder', () => {
  let kube: KubeEmulator;
  let core: CoreV1Api;
  let recorder: EventRecorder;
  const failures: unknown[] = [];
  const target = {
    apiVersion: 'infrastructure.keymaster.dev/v1beta1',
    kind: 'AWSCluster',
    metadata: { name: 'prod', namespace: 'team-a', uid: 'uid-1' },
  };

  before(async () => {
    kube = await startKubeEmulator({});
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(kube.kubeConfig());
    core = kubeConfig.makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: 'team-a' } } });
    recorder = new EventRecorder(
      kubeConfig,
      'keymaster',
      () => new Date(),
      (error) => failures.push(error),
    );
  });
  after(() => kube.stop());

  it('escapes control and bidirectional characters of messages, whoever built them', async () => {
    await recorder.record(target, 'Warning', 'InvalidTags', 'key "tenant\u202e" refused\nFAKE: all good');
    expect(failures).to.deep.equal([]);
    const { items } = await core.listNamespacedEvent({ namespace: 'team-a' });
    expect(items.map(({ message }) => message)).to.deep.equal(['key "tenant\\u202e" refused\\u000aFAKE: all good']);
  });
});
