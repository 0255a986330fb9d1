import type { AwsCredentialIdentity } from '@smithy/types';
import { expect } from 'chai';
import { RefreshingCredentials } from '../src/refreshing-credentials.js';
import { AwsCredentialError, refreshWindowMs, renewalTime } from '../src/index.js';

const HOUR = 3_600_000;

/**
 * A credential source on a fake clock: each call issues `session-N`, valid for `lifetime`, or fails when
 * told to; renewals the SDK asks for by itself are admitted while `state.admitted`.
 */
function fakeSource(lifetime = HOUR) {
  const state = {
    now: 1_000_000,
    calls: 0,
    failing: false,
    failure: (): Error => new Error('STS is down'),
    admitted: true,
  };
  const obtain = (): Promise<AwsCredentialIdentity> => {
    state.calls += 1;
    if (state.failing) return Promise.reject(state.failure());
    return Promise.resolve({
      accessKeyId: `session-${state.calls}`,
      secretAccessKey: 's',
      expiration: new Date(state.now + lifetime),
    });
  };
  const admit = () => (state.admitted ? undefined : new Error('no STS call left in the budget'));
  return { state, credentials: new RefreshingCredentials(obtain, () => state.now, admit) };
}

describe('RefreshingCredentials', () => {
  it('obtains once for any number of concurrent callers', async () => {
    const { state, credentials } = fakeSource();
    const all = await Promise.all(Array.from({ length: 50 }, () => credentials.get()));
    expect(state.calls).to.equal(1);
    expect(new Set(all.map((c) => c.accessKeyId))).to.deep.equal(new Set(['session-1']));
  });

  it('is used as it is by the SDK (marked memoized) and answers from memory until the renewal window', async () => {
    const { state, credentials } = fakeSource();
    expect(credentials.provider.memoized).to.equal(true);
    await credentials.provider();
    state.now += HOUR - refreshWindowMs(HOUR) - 1;
    expect((await credentials.provider()).accessKeyId).to.equal('session-1');
    state.now += 2;
    expect((await credentials.provider()).accessKeyId).to.equal('session-2');
    expect(state.calls).to.equal(2);
  });

  it('scales the renewal window with the session length', () => {
    expect(refreshWindowMs(900_000)).to.equal(90_000);
    expect(refreshWindowMs(HOUR)).to.equal(300_000);
    expect(refreshWindowMs(12 * HOUR)).to.equal(300_000);
    expect(refreshWindowMs(100_000)).to.equal(60_000);
  });

  it('keeps still-valid credentials when a renewal fails, and retries with backoff, not on every call', async () => {
    const { state, credentials } = fakeSource();
    await credentials.get();
    state.now += HOUR - 60_000; // inside the window, one minute before expiry
    state.failing = true;
    expect((await credentials.get()).accessKeyId).to.equal('session-1');
    expect(state.calls).to.equal(2);
    expect((await credentials.get()).accessKeyId).to.equal('session-1');
    expect(state.calls, 'no retry before the backoff elapsed').to.equal(2);
    state.now += 1_000;
    state.failing = false;
    expect((await credentials.get()).accessKeyId).to.equal('session-3');
  });

  it('fails once the credentials have expired and renewal still fails', async () => {
    const { state, credentials } = fakeSource();
    await credentials.get();
    state.failing = true;
    state.now += HOUR + 1;
    let failure: unknown;
    await credentials.get().catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(Error).with.property('message', 'STS is down');
  });

  describe('when AWS refuses the AssumeRole', () => {
    const refusal = (code: string) => () =>
      new AwsCredentialError({ kind: 'AWSClusterRoleIdentity', name: 'r' }, 'sts:AssumeRole', code, 'refused', 'hint');
    const failures = async (credentials: RefreshingCredentials, times: number) => {
      const errors: unknown[] = [];
      for (let i = 0; i < times; i += 1) await credentials.get().catch((error: unknown) => errors.push(error));
      return errors;
    };

    it('never asks again when AWS refused the input itself (the SDK’s PackedPolicyTooLargeException): every caller gets that refusal', async () => {
      const { state, credentials } = fakeSource();
      state.failing = true;
      state.failure = refusal('PackedPolicyTooLargeException');
      const [first] = await failures(credentials, 1);
      expect(first).to.be.instanceOf(AwsCredentialError).with.property('inputRefused', true);
      state.now += HOUR;
      const again = await failures(credentials, 5);
      expect(state.calls).to.equal(1);
      expect(again).to.have.length(5);
      for (const error of again) expect(error).to.equal(first);
    });

    it('asks again after a backoff when AWS refused who asked (AccessDenied: a trust policy can be fixed in AWS); callers meanwhile share the refusal', async () => {
      const { state, credentials } = fakeSource();
      state.failing = true;
      state.failure = refusal('AccessDenied');
      const [first, ...meanwhile] = await failures(credentials, 5);
      expect(meanwhile).to.have.length(4);
      for (const error of meanwhile) expect(error).to.equal(first);
      expect(state.calls, 'one AssumeRole for five callers').to.equal(1);
      state.now += 1_000;
      await failures(credentials, 3);
      expect(state.calls).to.equal(2);
      state.now += 1_999;
      await failures(credentials, 1);
      expect(state.calls, 'the backoff doubled').to.equal(2);
      state.now += 1;
      state.failing = false;
      expect((await credentials.get()).accessKeyId).to.equal('session-3');
    });
  });

  it('renews once when AWS refuses the current generation; stale reports do nothing', async () => {
    const { state, credentials } = fakeSource();
    await credentials.get();
    const refused = credentials.generation;
    for (let i = 0; i < 10; i += 1) credentials.invalidate(refused);
    const renewed = await Promise.all([credentials.get(), credentials.get()]);
    expect(renewed.map((c) => c.accessKeyId)).to.deep.equal(['session-2', 'session-2']);
    credentials.invalidate(refused); // a late report about session-1
    expect((await credentials.get()).accessKeyId).to.equal('session-2');
    expect(state.calls).to.equal(2);
  });

  it('caches credentials without expiration (static keys) for good', async () => {
    let calls = 0;
    const credentials = new RefreshingCredentials(
      () => {
        calls += 1;
        return Promise.resolve({ accessKeyId: 'AKIA', secretAccessKey: 's' });
      },
      () => 0,
    );
    await credentials.get();
    await credentials.get();
    expect(calls).to.equal(1);
  });

  describe('renewals the SDK asks for by itself, against an STS budget', () => {
    it('keeps the still-valid credentials while the budget refuses, and renews once it admits', async () => {
      const { state, credentials } = fakeSource();
      await credentials.provider();
      state.now += HOUR - 60_000; // inside the window
      state.admitted = false;
      expect((await credentials.provider()).accessKeyId).to.equal('session-1');
      expect(state.calls, 'no call past the budget').to.equal(1);
      state.admitted = true;
      expect((await credentials.provider()).accessKeyId).to.equal('session-2');
    });

    it('fails with the budget’s refusal once the credentials have expired, and makes no call', async () => {
      const { state, credentials } = fakeSource();
      await credentials.provider();
      state.now += HOUR + 1;
      state.admitted = false;
      let failure: unknown;
      await credentials.provider().catch((error: unknown) => (failure = error));
      expect(failure).to.be.instanceOf(Error).with.property('message', 'no STS call left in the budget');
      expect(state.calls).to.equal(1);
    });

    it('never asks the budget when the controller asks (`get`: it paid before), nor when nothing is due', async () => {
      const { state, credentials } = fakeSource();
      state.admitted = false;
      expect((await credentials.get()).accessKeyId).to.equal('session-1');
      expect((await credentials.provider()).accessKeyId, 'fresh: nothing to admit').to.equal('session-1');
      expect(state.calls).to.equal(1);
    });
  });

  it('says whether `get` would obtain: none yet, due, refused or forced; never while a renewal is in flight or backing off', async () => {
    const { state, credentials } = fakeSource();
    expect(credentials.wouldObtain(), 'none yet').to.equal(true);
    const first = credentials.get();
    expect(credentials.wouldObtain(true), 'in flight: callers join it').to.equal(false);
    await first;
    expect(credentials.wouldObtain()).to.equal(false);
    expect(credentials.wouldObtain(true), 'forced').to.equal(true);
    state.now += HOUR - refreshWindowMs(HOUR);
    expect(credentials.wouldObtain(), 'in the renewal window').to.equal(true);
    state.failing = true;
    await credentials.get();
    expect(credentials.wouldObtain(true), 'backing off after a failed renewal').to.equal(false);
    state.now += 1_000;
    expect(credentials.wouldObtain()).to.equal(true);
    credentials.invalidate(credentials.generation);
    expect(credentials.wouldObtain(), 'refused by AWS').to.equal(true);
  });

  it('says whether `get` would fail without a call: a failure backing off, and nothing usable', async () => {
    const { state, credentials } = fakeSource();
    state.failing = true;
    await credentials.get().catch(() => undefined);
    expect(credentials.wouldFail()).to.equal(true);
    state.now += 1_000;
    expect(credentials.wouldFail(), 'the backoff has passed: it would ask').to.equal(false);
    state.failing = false;
    await credentials.get();
    state.now += HOUR - 60_000;
    state.failing = true;
    await credentials.get();
    expect(credentials.wouldFail(), 'a failed renewal, the credentials still valid').to.equal(false);
  });

  describe('renewalTime: renewAtPercent with a floor', () => {
    const at = (lifetimeS: number, percent: number, floorS: number) =>
      renewalTime(0, lifetimeS * 1000, percent, floorS * 1000) / 1000;

    it('renews a 900 s session asked at 10 % after 300 s with the default 5 minute floor, not 90 s', () => {
      expect(at(900, 10, 300)).to.equal(300);
      expect(at(900, 10, 0), 'no floor').to.equal(90);
    });

    it('leaves renewAtPercent alone above the floor', () => {
      expect(at(3600, 50, 300)).to.equal(1800);
      expect(at(900, 50, 300)).to.equal(450);
    });

    it('never renews later than the renewal window before expiry, whatever the floor', () => {
      expect(at(900, 10, 3600)).to.equal(900 - 90);
      expect(at(3600, 90, 3600)).to.equal(3600 - 300);
    });
  });
});
