/**
 * Preloaded (`node --import`) into a `keymaster run` process by tests that move the aws-emulator's
 * clock: every Date of the process (Date.now(), new Date()) reads the wall clock plus the emulator's
 * offset, as `startController`'s `clock` option does for a controller run in process, so the controller
 * renews credentials when AWS's time says they are due. Timers keep real time. The offset is read from
 * the emulator's admin API (AWS_ENDPOINT_URL) before the controller starts, then every 100 ms. The AWS
 * SDK corrects the skew of its signatures from AWS's Date header (wall time), as on any machine whose
 * clock is off. (packages/devtools/scripts/bench/time-shift.ts shifts both sides instead.)
 */
const clockUrl = `${process.env['AWS_ENDPOINT_URL'] ?? ''}/_emulator/clock`;
const wall = Date.now;
const RealDate = Date;
let offsetMs = 0;

class EmulatorDate extends RealDate {
  constructor(...args: unknown[]) {
    if (args.length === 0) super(wall() + offsetMs);
    else super(...(args as [string]));
  }

  static override now(): number {
    return wall() + offsetMs;
  }
}

globalThis.Date = EmulatorDate as DateConstructor;

async function readOffset(): Promise<void> {
  try {
    const response = await fetch(clockUrl);
    offsetMs = ((await response.json()) as { offsetSeconds: number }).offsetSeconds * 1000;
  } catch {
    // The emulator stops before the controller at the end of a test: keep the last offset.
  }
}

await readOffset();
setInterval(() => void readOffset(), 100).unref();
