import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import type { CallRecord, CallSummary } from '@keymaster/aws-emulator';
import { AssumeRoleTally } from '../../scripts/bench/assume-role-tally.js';

const assumed = (role: string): CallRecord => ({
  time: '2026-11-28T00:00:00.000Z',
  service: 'sts',
  action: 'sts:AssumeRole',
  outcome: 'success',
  status: 200,
  requestId: 'request-1',
  detail: { roleArn: `arn:aws:iam::111111111111:role/${role}`, durationSeconds: 3600 },
});

/** An aws-emulator call log that the test appends to, whose reads fail while `failing` is above 0. */
class FakeCalls {
  readonly log: CallRecord[] = [];
  failing = 0;
  reads = 0;

  calls = (recent = 0): Promise<CallSummary> => {
    this.reads++;
    if (this.failing > 0) {
      this.failing--;
      // What fetch throws when the emulators close the socket under it.
      return Promise.reject(new TypeError('fetch failed'));
    }
    const summary = { total: this.log.length, byAction: {}, byCaller: {}, errors: {} };
    return Promise.resolve({ ...summary, recent: this.log.slice(Math.max(0, this.log.length - recent)) });
  };
}

describe("bench: the STS phase's AssumeRole count", () => {
  it('counts per role, and goes on following after a read that could not connect', async function () {
    // A tally that stopped following never counts the calls below: this test then ends by its timeout.
    this.timeout(10_000);
    const api = new FakeCalls();
    const tally = new AssumeRoleTally(api);
    api.failing = 2;
    tally.follow();
    while (api.reads < 3) await sleep(50);
    for (let call = 0; call < 400; call++) api.log.push(assumed(call % 2 ? 'tenant-a' : 'tenant-b'));
    // Followed still: it reads the 400 calls on its own, before stop().
    while (Object.keys(tally.byRole).length === 0) await sleep(50);
    api.log.push(assumed('tenant-a'));
    await tally.stop();
    expect(tally.byRole).to.deep.equal({
      'arn:aws:iam::111111111111:role/tenant-a': 201,
      'arn:aws:iam::111111111111:role/tenant-b': 200,
    });
    expect(tally.complete).to.equal(true);
    expect(tally.lifetimeSeconds).to.equal(3600);
  });

  it('fails at stop when a read fails for another reason', async () => {
    const tally = new AssumeRoleTally({ calls: () => Promise.reject(new Error('500 from the admin API')) });
    tally.follow();
    const error = await tally.stop().then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(String(error)).to.include('500 from the admin API');
  });
});
