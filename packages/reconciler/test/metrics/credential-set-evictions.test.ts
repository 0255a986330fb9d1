import { expect } from 'chai';
import { KeymasterMetrics } from '../../src/metrics.js';

describe('credential set eviction metric', () => {
  it("counts the resolver's evictions for room per namespace", async () => {
    const metrics = new KeymasterMetrics();
    const observer = metrics.resolverObserver();
    observer.credentialSetEvicted!('tenant-a');
    observer.credentialSetEvicted!('tenant-a');
    observer.credentialSetEvicted!('tenant-b');
    const { values } = await metrics.registry.getSingleMetric('keymaster_credential_set_evictions_total')!.get();
    expect(values.map(({ labels, value }) => [labels['namespace'], value])).to.deep.equal([
      ['tenant-a', 2],
      ['tenant-b', 1],
    ]);
  });
});
