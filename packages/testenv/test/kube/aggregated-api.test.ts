import { CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { expect } from 'chai';
import { startKubeEmulator, type KubeEmulator } from '@keymaster/kube-emulator';
import { aggregatedApiObjects, createObjects } from '../../src/index.js';
import { freePorts } from '../../src/kube/ports.js';
import { eventually } from './helpers/processes.js';

describe('aggregatedApiObjects', () => {
  let emulator: KubeEmulator;
  let kubeConfig: KubeConfig;
  before(async () => {
    emulator = await startKubeEmulator();
    kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(emulator.kubeConfig());
  });
  after(() => emulator.stop());

  it('registers a server at localhost:PORT as an ExternalName Service and an APIService, created by createObjects', async () => {
    const [port] = (await freePorts(1)) as [number];
    await kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: 'inspect' } } });
    const ca = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    await createObjects(
      kubeConfig,
      aggregatedApiObjects({
        group: 'inspect.example.com',
        version: 'v1',
        namespace: 'inspect',
        service: 'api',
        port,
        ca,
      }),
    );
    const service = await kubeConfig
      .makeApiClient(CoreV1Api)
      .readNamespacedService({ name: 'api', namespace: 'inspect' });
    expect(service.spec).to.deep.include({ type: 'ExternalName', externalName: 'localhost' });
    const apiServices = kubeConfig.makeApiClient(CustomObjectsApi);
    const read = async () =>
      (await apiServices.getClusterCustomObject({
        group: 'apiregistration.k8s.io',
        version: 'v1',
        plural: 'apiservices',
        name: 'v1.inspect.example.com',
      })) as { spec: Record<string, unknown>; status?: { conditions?: { reason: string }[] } };
    const apiService = await read();
    expect(apiService.spec).to.deep.include({ service: { namespace: 'inspect', name: 'api', port } });
    expect(Buffer.from(apiService.spec.caBundle as string, 'base64').toString()).to.equal(ca);
    // Nothing listens at the port: the API server finds it unreachable.
    await eventually(async () =>
      expect((await read()).status?.conditions?.[0]?.reason).to.equal('FailedDiscoveryCheck'),
    );
  });
});
