/**
 * Samples every controller process's /metrics and the machine's load once a second: the controller's
 * peak RSS and heap (per process), and the load average the run shared the machine with.
 */
import { loadavg } from 'node:os';
import type { ControllerProcess } from './processes.js';
import type { ControllerReading } from './prometheus.js';

export interface Peaks {
  /** The largest RSS and heap any one controller process reached, in bytes. */
  rssBytes: number;
  heapUsedBytes: number;
  /** 1-minute load average: mean and highest over the samples. */
  load: { mean: number; max: number };
}

export class Sampler {
  #controllers: readonly ControllerProcess[] = [];
  #timer: NodeJS.Timeout | undefined;
  #peaks = { rssBytes: 0, heapUsedBytes: 0 };
  #loads: number[] = [];
  #ticking = false;
  latest: ControllerReading[] = [];

  watch(controllers: readonly ControllerProcess[]): void {
    this.#controllers = controllers;
    this.#peaks = { rssBytes: 0, heapUsedBytes: 0 };
    this.#loads = [];
    clearInterval(this.#timer);
    this.#timer = setInterval(() => void this.#tick(), 1000);
  }

  /** A tick while the last one still waits skips: a busy controller answers /metrics slowly, and scrapes piling up would busy it more. */
  async #tick(): Promise<void> {
    if (this.#ticking) return;
    this.#ticking = true;
    await this.sample().catch(() => undefined);
    this.#ticking = false;
  }

  async sample(): Promise<ControllerReading[]> {
    this.latest = await Promise.all(this.#controllers.map((controller) => controller.read()));
    for (const { rssBytes, heapUsedBytes } of this.latest) {
      this.#peaks.rssBytes = Math.max(this.#peaks.rssBytes, rssBytes);
      this.#peaks.heapUsedBytes = Math.max(this.#peaks.heapUsedBytes, heapUsedBytes);
    }
    this.#loads.push(loadavg()[0] ?? 0);
    return this.latest;
  }

  /** Throws when a watched controller has exited (out of memory, say): a phase would wait for it for ever. */
  assertRunning(): void {
    const gone = this.#controllers.find(({ child }) => child.exitCode !== null || child.signalCode !== null);
    if (gone)
      throw new Error(
        `a controller exited (${gone.child.exitCode ?? gone.child.signalCode}) before the phase ended: its log is in .bench/logs/`,
      );
  }

  peaks(): Peaks {
    const loads = this.#loads.length ? this.#loads : [loadavg()[0] ?? 0];
    return {
      ...this.#peaks,
      load: {
        mean: Math.round((loads.reduce((a, b) => a + b, 0) / loads.length) * 10) / 10,
        max: Math.round(Math.max(...loads) * 10) / 10,
      },
    };
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}

/** The readings of several processes added up (CPU, reconciles, pending work). */
export function combined(readings: readonly ControllerReading[]): ControllerReading {
  const reconciles: Record<string, number> = {};
  for (const reading of readings)
    for (const [result, count] of Object.entries(reading.reconciles))
      reconciles[result] = (reconciles[result] ?? 0) + count;
  return {
    cpuSeconds: readings.reduce((sum, { cpuSeconds }) => sum + cpuSeconds, 0),
    rssBytes: readings.reduce((sum, { rssBytes }) => sum + rssBytes, 0),
    heapUsedBytes: readings.reduce((sum, { heapUsedBytes }) => sum + heapUsedBytes, 0),
    reconciles,
    pending: readings.reduce((sum, { pending }) => sum + pending, 0),
    parked: {},
  };
}
