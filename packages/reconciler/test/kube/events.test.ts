import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { startKubeEmulator, type KubeEmulator } from '@keymaster/kube-emulator';
import { expect } from 'chai';
import { EventRecorder } from '../../src/kube/events.js';

const kubeConfigOf = (kube: KubeEmulator) => {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(kube.kubeConfig());
  return kubeConfig;
};

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

  it('after a restart, counts an event recorded before instead of failing on the existing name', async () => {
    await recorder.record(target, 'Warning', 'AssumeRoleFailed', 'denied');
    const restarted = new EventRecorder(
      kubeConfigOf(kube),
      'keymaster',
      () => new Date(),
      (error) => failures.push(error),
    );
    await restarted.record(target, 'Warning', 'AssumeRoleFailed', 'denied');
    await restarted.record(target, 'Warning', 'AssumeRoleFailed', 'denied');
    expect(failures).to.deep.equal([]);
    const events = (await core.listNamespacedEvent({ namespace: 'team-a' })).items.filter(
      ({ reason }) => reason === 'AssumeRoleFailed',
    );
    expect(events.map(({ count }) => count)).to.deep.equal([3]);
  });

  it('creates an event again once the one it counted is gone (events expire)', async () => {
    await recorder.record(target, 'Warning', 'IdentityNotFound', 'missing');
    const [event] = (await core.listNamespacedEvent({ namespace: 'team-a' })).items.filter(
      ({ reason }) => reason === 'IdentityNotFound',
    );
    await core.deleteNamespacedEvent({ namespace: 'team-a', name: event!.metadata.name! });
    await recorder.record(target, 'Warning', 'IdentityNotFound', 'missing');
    expect(failures).to.deep.equal([]);
    const again = (await core.listNamespacedEvent({ namespace: 'team-a' })).items.filter(
      ({ reason }) => reason === 'IdentityNotFound',
    );
    expect(again.map(({ count }) => count)).to.deep.equal([1]);
  });
});
