/**
 * Imported first (`node --import`) by the benchmark's emulators and by the controller of its STS
 * phase: every Date of the process reads the wall clock plus a shift that the benchmark sends over IPC
 * (`{timeShiftMs}`, answered `{timeShiftedMs}`). Both sides then see 24 hours pass in minutes and
 * agree on it: the aws-emulator's session expiry and signature checks, and the controller's renewal
 * decisions. Timers keep real time. (Advancing only the aws-emulator's clock would expire sessions
 * under a controller that renews by its own clock: every renewal would start with an ExpiredToken.)
 */
import { ServerResponse } from 'node:http';

const wall = Date.now;
const RealDate = Date;
let shiftMs = 0;

class ShiftedDate extends RealDate {
  constructor(...args: unknown[]) {
    if (args.length === 0) super(wall() + shiftMs);
    else super(...(args as [string]));
  }

  static override now(): number {
    return wall() + shiftMs;
  }
}

globalThis.Date = ShiftedDate as DateConstructor;

// Node writes the Date header from its own Date: the AWS SDK corrects its clock skew from that header,
// which would undo the controller's shift.
// eslint-disable-next-line @typescript-eslint/unbound-method -- called below with its own this
const { writeHead } = ServerResponse.prototype;
ServerResponse.prototype.writeHead = function (this: ServerResponse, ...args: unknown[]) {
  if (!this.headersSent && !this.hasHeader('date')) this.setHeader('date', new Date().toUTCString());
  return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
} as typeof writeHead;

process.on('message', (message: { timeShiftMs?: unknown } | null) => {
  if (typeof message?.timeShiftMs !== 'number') return;
  shiftMs = message.timeShiftMs;
  process.send?.({ timeShiftedMs: shiftMs });
});
// The IPC channel alone keeps no process alive.
process.channel?.unref();
