import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { GROUP } from '@keymaster/api';
import { RUN_FLAGS } from '@keymaster/reconciler';
import { DEMO_WORLD, startEmulators } from '@keymaster/testenv';
import { EmulatorApi } from '../../scripts/bench/emulator-api.js';
import { MINIMUM_KUBE_WRITES_PER_CLUSTER, measureKubeFloor } from '../../scripts/bench/kube-floor.js';

describe("the bench's Kubernetes floor", function () {
  this.timeout(60_000);

  it("makes each cluster's fewest writes of the controller's own kind, and leaves no object behind", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'keymaster-bench-floor-'));
    const kubeconfig = join(dir, 'kubeconfig');
    const emulators = await startEmulators({ world: DEMO_WORLD, kubeconfig, namespace: RUN_FLAGS.namespace.default });
    try {
      const kubeConfig = new KubeConfig();
      kubeConfig.loadFromFile(kubeconfig);
      const api = new EmulatorApi(
        {
          kube: 'emulator',
          kubeUrl: emulators.kube.url,
          awsUrl: emulators.aws.url,
          accessKeyId: '',
          secretAccessKey: '',
        },
        kubeConfig,
      );
      await api.resetKubeStats();
      const floor = await measureKubeFloor(kubeConfig, 40);
      expect(floor.writes).to.equal(40 * MINIMUM_KUBE_WRITES_PER_CLUSTER);
      expect(floor.seconds).to.be.at.least(0);
      const writes = await api.kubeWrites();
      expect(writes[`create awsclusterledgers.${GROUP}`]).to.equal(40);
      expect(writes[`update awsclusterledgers.${GROUP}`]).to.equal(40 * 3);
      const left = (await kubeConfig.makeApiClient(CustomObjectsApi).listClusterCustomObject({
        group: GROUP,
        version: 'v1beta1',
        plural: 'awsclusterledgers',
      })) as { items: unknown[] };
      expect(left.items).to.be.empty;
    } finally {
      await emulators.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
