import { expect } from 'chai';
import { Controller, keyOf, requestOf, type Request, type Result } from '../../src/runtime/controller.js';
import { RuntimeMetrics } from '../../src/runtime/metrics.js';
import { FakeClock } from '../fake-clock.js';

/** Lets pending promise callbacks run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

function harness(
  reconcile: (request: Request) => Promise<Result | undefined>,
  workers = 2,
  isExpected?: (error: unknown) => boolean,
) {
  const clock = new FakeClock();
  const metrics = new RuntimeMetrics();
  const seen: string[] = [];
  const controller = new Controller({
    name: 'awscluster',
    workers,
    clock,
    metrics,
    ...(isExpected ? { isExpected } : {}),
    reconcile: (request) => {
      seen.push(keyOf(request));
      return reconcile(request);
    },
  });
  controller.start();
  return { clock, metrics, seen, controller };
}

const counter = async (metrics: RuntimeMetrics, name: string, labels: Record<string, string>) => {
  const metric = (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === name);
  return metric?.values.find((value) => Object.entries(labels).every(([k, v]) => value.labels[k] === v))?.value ?? 0;
};

describe('Controller', () => {
  it('maps keys to requests and back', () => {
    expect(requestOf('tenant-a/prod')).to.deep.equal({ namespace: 'tenant-a', name: 'prod' });
    expect(requestOf('default')).to.deep.equal({ name: 'default' });
    expect(keyOf({ namespace: 'a', name: 'b' })).to.equal('a/b');
  });

  it('queues only the requests this replica owns (--shards)', async () => {
    const seen: string[] = [];
    const controller = new Controller({
      name: 'awscluster',
      workers: 1,
      clock: new FakeClock(),
      owns: (request) => request.namespace === 'mine',
      reconcile: (request) => {
        seen.push(keyOf(request));
        return Promise.resolve(undefined);
      },
    });
    controller.enqueue({ namespace: 'mine', name: 'a' });
    controller.enqueue({ namespace: 'theirs', name: 'b' });
    controller.start();
    await controller.stop();
    expect(seen).to.deep.equal(['mine/a']);
  });

  it('shows the error counter at 0 before any reconcile, as controller-runtime does', async () => {
    const { metrics, controller } = harness(() => Promise.resolve(undefined));
    const errors = (await metrics.registry.getMetricsAsJSON()).find(
      ({ name }) => name === 'controller_runtime_reconcile_errors_total',
    );
    expect(errors?.values).to.deep.equal([{ value: 0, labels: { controller: 'awscluster' } }]);
    await controller.stop();
  });

  it('retries a failing key with exponential backoff, then forgets it on success', async () => {
    let failures = 2;
    const { clock, seen, metrics, controller } = harness(() =>
      failures-- > 0 ? Promise.reject(new Error('boom')) : Promise.resolve(undefined),
    );
    controller.enqueue({ namespace: 'a', name: 'x' });
    await settle();
    expect(seen).to.have.length(1);
    clock.advance(5);
    await settle();
    expect(seen).to.have.length(2);
    clock.advance(9);
    await settle();
    expect(seen, 'second backoff is 10 ms').to.have.length(2);
    clock.advance(1);
    await settle();
    expect(seen).to.have.length(3);
    expect(controller.queue.retries('a/x')).to.equal(0);
    expect(await counter(metrics, 'controller_runtime_reconcile_errors_total', { controller: 'awscluster' })).to.equal(
      2,
    );
    expect(await counter(metrics, 'controller_runtime_reconcile_total', { result: 'success' })).to.equal(1);
    expect(await counter(metrics, 'workqueue_retries_total', { name: 'awscluster' })).to.equal(2);
    await controller.stop();
  });

  it('retries an expected error (a stale read) as a requeue, not counted among errors', async () => {
    let conflicts = 1;
    const stale = Object.assign(new Error('409 Conflict'), { stale: true });
    const { clock, seen, metrics, controller } = harness(
      () => (conflicts-- > 0 ? Promise.reject(stale) : Promise.resolve(undefined)),
      2,
      (error) => (error as { stale?: boolean }).stale === true,
    );
    controller.enqueue({ namespace: 'a', name: 'x' });
    await settle();
    clock.advance(5);
    await settle();
    expect(seen).to.have.length(2);
    expect(await counter(metrics, 'controller_runtime_reconcile_errors_total', { controller: 'awscluster' })).to.equal(
      0,
    );
    expect(await counter(metrics, 'controller_runtime_reconcile_total', { result: 'requeue' })).to.equal(1);
    expect(await counter(metrics, 'controller_runtime_reconcile_total', { result: 'error' })).to.equal(0);
    await controller.stop();
  });

  it('comes back after requeueAfter', async () => {
    let calls = 0;
    const { clock, seen, controller } = harness(() =>
      Promise.resolve(calls++ === 0 ? { requeueAfterMs: 60_000 } : undefined),
    );
    controller.enqueue({ name: 'default' });
    await settle();
    clock.advance(59_999);
    await settle();
    expect(seen).to.have.length(1);
    clock.advance(1);
    await settle();
    expect(seen).to.deep.equal(['default', 'default']);
    await controller.stop();
  });

  it('never reconciles one key in two workers at once, and reconciles it again if it changed meanwhile', async () => {
    let release!: () => void;
    let running = 0;
    let maxRunning = 0;
    const { seen, controller } = harness(async () => {
      running += 1;
      maxRunning = Math.max(maxRunning, running);
      await new Promise<void>((resolve) => (release = resolve));
      running -= 1;
      return undefined;
    }, 4);
    controller.enqueue({ namespace: 'a', name: 'x' });
    await settle();
    controller.enqueue({ namespace: 'a', name: 'x' });
    controller.enqueue({ namespace: 'a', name: 'x' });
    await settle();
    expect(maxRunning).to.equal(1);
    release();
    await settle();
    expect(seen, 'queued again once, after the first finished').to.have.length(2);
    release();
    await settle();
    const stopped = controller.stop();
    await stopped;
    expect(maxRunning).to.equal(1);
  });

  it('stop drains: keys already queued are still reconciled', async () => {
    const { seen, controller } = harness(() => Promise.resolve(undefined), 1);
    for (const name of ['a', 'b', 'c']) controller.enqueue({ name });
    await controller.stop();
    expect(seen).to.deep.equal(['a', 'b', 'c']);
    controller.enqueue({ name: 'd' });
    await settle();
    expect(seen).to.have.length(3);
  });
});
