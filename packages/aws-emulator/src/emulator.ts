import type { AddressInfo } from 'node:net';
import { CallLog, type CallSummary } from './calls.js';
import { createClock, type Clock } from './clock.js';
import { Faults } from './faults/faults.js';
import { createEmulatorServer } from './server.js';
import { Quotas } from './quotas/quotas.js';
import type { QuotaSettings } from './quotas/settings.js';
import { ec2 } from './services/ec2/index.js';
import { sts } from './services/sts/index.js';
import { tagging } from './services/tagging/index.js';
import { loadWorldFile } from './world/load.js';
import { WorldState } from './world/state.js';
import type { World } from './world/types.js';
import { validateWorld } from './world/validate.js';

export interface AwsEmulatorOptions {
  /** The port to listen on; 0 (the default) picks a free one. */
  readonly port?: number;
  /** The address to listen on; 127.0.0.1 by default. */
  readonly host?: string;
  /** The world: an object, or the path of a YAML or JSON world file. An empty account when absent. */
  readonly world?: World | string;
  /** AWS's request quotas (`aws`, `off`, or numbers by quota name); the world's `quotas` when absent. */
  readonly quotas?: QuotaSettings;
}

/** A running emulator and its controls (the library face of the /_emulator admin paths). */
export interface AwsEmulator {
  /** `http://HOST:PORT`: give it to clients as their endpoint (`AWS_ENDPOINT_URL`, `--endpoint-url`). */
  readonly url: string;
  readonly world: WorldState;
  readonly clock: Clock;
  readonly faults: Faults;
  /** AWS's request quotas in force: `quotas.set('off')` lifts them, `quotas.list()` shows them. */
  readonly quotas: Quotas;
  readonly calls: { summary(): CallSummary; reset(): void };
  /** Stops listening and drops open connections. */
  stop(): Promise<void>;
}

const DEFAULT_WORLD: World = { accounts: [{ id: '000000000000' }] };

export async function startAwsEmulator(options: AwsEmulatorOptions = {}): Promise<AwsEmulator> {
  const spec =
    typeof options.world === 'string'
      ? await loadWorldFile(options.world)
      : validateWorld(options.world ?? DEFAULT_WORLD);
  const clock = createClock();
  const calls = new CallLog();
  const quotas = new Quotas(clock, spec.quotas);
  if (options.quotas !== undefined) quotas.set(options.quotas);
  const emulation = {
    world: new WorldState(spec),
    clock,
    faults: new Faults(clock),
    quotas,
    calls,
    services: [sts, tagging, ec2],
  };
  const server = createEmulatorServer(emulation);
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    world: emulation.world,
    clock,
    faults: emulation.faults,
    quotas: emulation.quotas,
    calls: { summary: () => calls.summary(), reset: () => calls.reset() },
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
