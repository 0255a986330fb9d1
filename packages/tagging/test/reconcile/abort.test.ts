import { expect } from 'chai';
import { clusterInstances, REGIONS, taggingWorld } from '../support/aws-world.js';
import { startHarness, type Harness } from '../support/harness.js';

describe('reconcileTags with an abort signal', function () {
  this.timeout(30_000);
  let h: Harness;
  afterEach(() => h.stop());

  it('writes nothing once aborted during discovery, and throws the reason', async () => {
    h = await startHarness(taggingWorld(REGIONS.flatMap((region) => clusterInstances(region, 10))));
    const before = h.resources();
    const controller = new AbortController();
    const cancelled = new Error('cancelled: the cluster was deleted');
    // The claim is asked once discovery has run: the moment the work is cancelled here.
    const claim = {
      decide: () => {
        controller.abort(cancelled);
        return Promise.resolve({ owner: true as const });
      },
    };
    let error: unknown;
    try {
      await h.reconcile({ claim, signal: controller.signal });
    } catch (caught) {
      error = caught;
    }
    expect(error).to.equal(cancelled);
    expect(h.calls('tag:GetResources'), 'discovery ran').to.be.above(0);
    expect(h.calls('tag:TagResources') + h.calls('tag:UntagResources')).to.equal(0);
    expect(h.resources()).to.deep.equal(before);
  });

  it('runs to the end when the signal is not aborted', async () => {
    h = await startHarness(taggingWorld(REGIONS.flatMap((region) => clusterInstances(region, 10))));
    const result = await h.reconcile({ signal: new AbortController().signal });
    expect(result.synced).to.equal(true);
    expect(h.calls('tag:TagResources')).to.be.above(0);
  });
});
