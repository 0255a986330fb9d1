import { RateLimiters } from '@keymaster/tagging';
import { expect } from 'chai';
import { KeymasterMetrics } from '../../src/metrics.js';

/** A clock whose sleeps return at once and move its time on. */
function virtualClock() {
  let now = 0;
  return {
    now: () => now,
    sleep: (ms: number) => {
      now += ms;
      return Promise.resolve();
    },
  };
}

/** A counter's value for one account, region and family. */
async function valueOf(metrics: KeymasterMetrics, name: string, family: string): Promise<number | undefined> {
  const metric = await metrics.registry.getSingleMetric(name)!.get();
  return metric.values.find(({ labels }) => labels['family'] === family && labels['region'] === 'us-east-1')?.value;
}

describe('AWS budget metrics', () => {
  it('show the requests, the wait and the throttles of each account, region and API family', async () => {
    const metrics = new KeymasterMetrics();
    const limiters = new RateLimiters({
      budgets: { taggingWrites: { ratePerSecond: 2, burst: 1 } },
      clock: virtualClock(),
    });
    metrics.watchAwsBudgets(() => limiters.stats());
    const writes = limiters.get('111111111111', 'us-east-1', 'taggingWrites');
    const reads = limiters.get('111111111111', 'us-east-1', 'taggingReads');
    // Two writes: the second waits half a second for its token; AWS throttles it.
    const [, second] = await Promise.all([writes.acquire(), writes.acquire()]);
    writes.throttled(second);
    await reads.acquire();

    expect(await valueOf(metrics, 'keymaster_aws_budget_requests_total', 'taggingWrites')).to.equal(2);
    expect(await valueOf(metrics, 'keymaster_aws_budget_wait_seconds_total', 'taggingWrites')).to.equal(0.5);
    expect(await valueOf(metrics, 'keymaster_aws_budget_throttles_total', 'taggingWrites')).to.equal(1);
    expect(await valueOf(metrics, 'keymaster_aws_budget_requests_total', 'taggingReads')).to.equal(1);
    expect(await valueOf(metrics, 'keymaster_aws_budget_throttles_total', 'taggingReads')).to.equal(0);
  });
});
