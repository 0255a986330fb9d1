import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { createControllerLogger, RUN_FLAGS, type RunningController } from '@keymaster/reconciler';
import { DEMO_WORLD, startEmulators } from '@keymaster/testenv';
import { parseMetrics, readController, readingUrl } from '../../scripts/bench/prometheus.js';
import { startControllerOnEmulators } from '../../src/demo/controller.js';

describe("the bench's reading of a controller", function () {
  this.timeout(60_000);

  it('asks for the metrics it reads and nothing else, and the controller serves each of them', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'keymaster-bench-reading-'));
    const kubeconfig = join(dir, 'kubeconfig');
    const emulators = await startEmulators({ world: DEMO_WORLD, kubeconfig, namespace: RUN_FLAGS.namespace.default });
    let controller: RunningController | undefined;
    try {
      const silent = createControllerLogger(
        'error',
        'json',
        new Writable({ write: (_chunk, _encoding, done) => done() }),
      );
      controller = await startControllerOnEmulators(emulators, kubeconfig, silent);
      const url = readingUrl(`${controller.metricsUrl}/metrics`);
      const response = await fetch(url);
      // The controller refuses a name it does not serve (400): 200 says it serves each one asked for.
      expect(response.status, await response.clone().text()).to.equal(200);
      const samples = parseMetrics(await response.text());
      const asked = new URL(url).searchParams.getAll('name[]');
      expect(
        samples.map(({ name }) => name).filter((name) => !asked.includes(name)),
        'not asked for',
      ).to.be.empty;
      for (const name of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_heap_size_used_bytes'])
        expect(asked, name).to.include(name);
      const reading = readController(samples);
      expect(reading.cpuSeconds).to.be.greaterThan(0);
      expect(reading.rssBytes).to.be.greaterThan(0);
      expect(reading.heapUsedBytes).to.be.greaterThan(0);
    } finally {
      await controller?.stop();
      await emulators.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
