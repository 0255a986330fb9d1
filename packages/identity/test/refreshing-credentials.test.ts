import type { AwsCredentialIdentity } from '@smithy/types';
import { expect } from 'chai';
import { RefreshingCredentials } from '../src/refreshing-credentials.js';
import { AwsCredentialError, refreshWindowMs } from '../src/index.js';

const HOUR = 3_600_000;

/** A credential source on a fake clock: each call issues `session-N`, valid for `lifetime`, or fails when told to. */
function fakeSource(lifetime = HOUR) {
  const state = { now: 1_000_000, calls: 0, failing: false, failure: (): Error => new Error('STS is down') };
  const obtain = (): Promise<AwsCredentialIdentity> => {
    state.calls += 1;
    if (state.failing) return Promise.reject(state.failure());
    return Promise.resolve({
      accessKeyId: `session-${state.calls}`,
      secretAccessKey: 's',
      expiration: new Date(state.now + lifetime),
    });
  };
  return { state, credentials: new RefreshingCredentials(obtain, () => state.now) };
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
});
