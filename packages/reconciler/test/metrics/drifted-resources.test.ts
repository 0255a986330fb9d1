import { expect } from 'chai';
import { KeymasterMetrics } from '../../src/metrics.js';

const drifted = async (metrics: KeymasterMetrics) =>
  (await metrics.registry.getSingleMetric('keymaster_drifted_resources')!.get()).values[0]?.value;

describe('keymaster_drifted_resources', () => {
  it("is the sum of each cluster's latest count, whatever order they change in", async () => {
    const metrics = new KeymasterMetrics();
    const steps: [cluster: string, count: number, total: number][] = [
      ['a/one', 3, 3],
      ['a/two', 2, 5],
      ['a/one', 1, 3],
      ['a/two', 0, 1],
      ['a/two', 0, 1],
      ['b/three', 4, 5],
      ['a/one', 0, 4],
      ['b/three', 0, 0],
    ];
    for (const [cluster, count, total] of steps) {
      metrics.setDrifted(cluster, count);
      expect(await drifted(metrics), `${cluster} at ${count}`).to.equal(total);
    }
  });
});
