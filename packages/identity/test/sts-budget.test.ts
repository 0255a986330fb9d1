import { expect } from 'chai';
import { StsBudget } from '../src/sts-budget.js';

/** A budget of 2 calls a second, 4 at once, on a clock the test moves. */
function onFakeClock() {
  const clock = { now: 1_000_000 };
  return { clock, budget: new StsBudget({ ratePerSecond: 2, burst: 4 }, () => clock.now) };
}

describe('StsBudget: a token bucket of STS calls per namespace', () => {
  it('lets a burst through at once, then tells the next work how long to wait', () => {
    const { budget } = onFakeClock();
    expect(budget.reserve('hostile', 'set-1', 2)).to.equal(0);
    expect(budget.reserve('hostile', 'set-2', 2)).to.equal(0);
    expect(budget.reserve('hostile', 'set-3', 2), 'two calls at 2/s').to.equal(1_000);
  });

  it('serves waiting work in turn: each reservation waits for the calls of those before it', () => {
    const { budget } = onFakeClock();
    budget.reserve('hostile', 'burst', 4);
    const waits = ['a', 'b', 'c'].map((key) => budget.reserve('hostile', key, 1));
    expect(waits).to.deep.equal([500, 1_000, 1_500]);
  });

  it('makes work that comes back after its wait go ahead without taking again', () => {
    const { clock, budget } = onFakeClock();
    budget.reserve('hostile', 'burst', 4);
    const wait = budget.reserve('hostile', 'set', 2);
    expect(wait).to.equal(1_000);
    clock.now += 400;
    expect(budget.reserve('hostile', 'set', 2), 'too early: the rest of the wait').to.equal(600);
    clock.now += 600;
    expect(budget.reserve('hostile', 'set', 2)).to.equal(0);
    // Its calls were the ones refilled: the bucket is still empty.
    expect(budget.reserve('hostile', 'next', 1)).to.equal(500);
  });

  it('takes what the work needs beyond its reservation when it comes back needing more', () => {
    const { clock, budget } = onFakeClock();
    budget.reserve('hostile', 'burst', 4);
    clock.now += budget.reserve('hostile', 'set', 1);
    expect(budget.reserve('hostile', 'set', 3), 'two more calls at 2/s').to.equal(1_000);
  });

  it('never lets one namespace spend another’s calls', () => {
    const { budget } = onFakeClock();
    for (let i = 0; i < 50; i += 1) budget.reserve('hostile', `set-${i}`, 2);
    expect(budget.reserve('tenant-b', 'set', 2)).to.equal(0);
    expect(budget.tryTake('tenant-b')).to.equal(true);
    expect(budget.tryTake('hostile')).to.equal(false);
  });

  it('lets no more calls through than burst + rate x time, however many ask', () => {
    const { clock, budget } = onFakeClock();
    const pending = new Map<string, number>();
    let made = 0;
    const start = clock.now;
    for (let step = 0; step < 200; step += 1) {
      for (let i = 0; i < 5; i += 1) {
        const key = `set-${(step * 5 + i) % 40}`;
        if ((pending.get(key) ?? 0) > clock.now) continue;
        if (budget.reserve('hostile', key, 2) === 0) {
          made += 2;
          pending.delete(key);
        } else pending.set(key, clock.now + 1);
      }
      clock.now += 100;
      const elapsed = (clock.now - start) / 1000;
      expect(made, `after ${elapsed} s`).to.be.at.most(4 + 2 * elapsed);
    }
    expect(made, 'it still made calls all along').to.be.at.least(30);
  });

  it('takes a call for the SDK only when the bucket has it now, never into debt', () => {
    const { clock, budget } = onFakeClock();
    for (let i = 0; i < 4; i += 1) expect(budget.tryTake('ns')).to.equal(true);
    expect(budget.tryTake('ns')).to.equal(false);
    clock.now += 500;
    expect(budget.tryTake('ns')).to.equal(true);
    expect(budget.tryTake('ns')).to.equal(false);
    // A reservation in line comes first.
    clock.now += 500;
    expect(budget.reserve('ns', 'set', 2)).to.equal(500);
    expect(budget.tryTake('ns')).to.equal(false);
  });

  it('drops a reservation nobody came back for, its calls spent', () => {
    const { clock, budget } = onFakeClock();
    budget.reserve('ns', 'burst', 4);
    expect(budget.reserve('ns', 'deleted-request', 2)).to.equal(1_000);
    clock.now += 1_000 + 600_001;
    // Coming back that late, it takes anew (the bucket has refilled meanwhile).
    expect(budget.reserve('ns', 'deleted-request', 4)).to.equal(0);
    expect(budget.reserve('ns', 'next', 1)).to.equal(500);
  });
});
