import { mkdir, writeFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startAwsEmulator, type World } from '../src/index.js';
import type { LoadOptions } from './bench-load.js';

/**
 * `pnpm bench`: how many signed calls per second the emulator answers on one core. The emulator runs
 * on this process's one thread; the load comes from a child process (another core). Figures go to stdout and to
 * .bench/aws-emulator.json at the repository root; docs/emulators/aws-emulator.md quotes them.
 */
const KEYS = { accessKeyId: 'AKIABENCHMARKBENCH00', secretAccessKey: 'bench-secret-0123456789abcdefghijklmn' };
const ROLE = 'arn:aws:iam::111111111111:role/bench';
const WORLD: World = {
  accounts: [
    {
      id: '111111111111',
      users: [{ name: 'bench', accessKeys: [KEYS], allow: ['sts:AssumeRole'] }],
      roles: [{ name: 'bench', trust: [{ principal: 'arn:aws:iam::111111111111:user/bench' }] }],
    },
  ],
};
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);

interface Scenario {
  readonly name: string;
  readonly mode: LoadOptions['mode'];
  readonly body: string;
  readonly concurrency: number;
}

const SCENARIOS: Scenario[] = [
  {
    name: 'GetCallerIdentity, SigV4-signed HTTP',
    mode: 'signed',
    body: 'Action=GetCallerIdentity&Version=2011-06-15',
    concurrency: 32,
  },
  {
    name: 'AssumeRole, SigV4-signed HTTP',
    mode: 'signed',
    body: `Action=AssumeRole&Version=2011-06-15&RoleArn=${encodeURIComponent(ROLE)}&RoleSessionName=bench`,
    concurrency: 32,
  },
  { name: 'GetCallerIdentity through @aws-sdk/client-sts', mode: 'sdk', body: '', concurrency: 32 },
];

async function measure(url: string, scenario: Scenario) {
  const elu = performance.eventLoopUtilization();
  const started = performance.now();
  const options: LoadOptions = {
    url,
    mode: scenario.mode,
    body: scenario.body,
    keys: KEYS,
    seconds: SECONDS,
    concurrency: scenario.concurrency,
  };
  const load = fork(fileURLToPath(new URL('./bench-load.ts', import.meta.url)), [JSON.stringify(options)], {
    execArgv: ['--import', 'tsx', '--conditions=@keymaster/source'],
  });
  const result = await new Promise<{ ok: number; failed: number }>((resolve, reject) => {
    load.once('message', (message) => resolve(message as { ok: number; failed: number }));
    load.once('error', reject);
  });
  const seconds = (performance.now() - started) / 1000;
  const busy = performance.eventLoopUtilization(elu).utilization;
  return {
    scenario: scenario.name,
    callsPerSecond: Math.round(result.ok / seconds),
    failed: result.failed,
    emulatorLoopBusy: Number(busy.toFixed(2)),
  };
}

// The emulator's own pace is measured, far past AWS's 600 STS calls a second: its quotas would answer most.
const emulator = await startAwsEmulator({ world: WORLD, quotas: 'off' });
const figures = [];
for (const scenario of SCENARIOS) {
  const figure = await measure(emulator.url, scenario);
  figures.push(figure);
  console.log(
    `${figure.scenario}: ${figure.callsPerSecond} calls/s (emulator event loop ${Math.round(figure.emulatorLoopBusy * 100)}% busy, ${figure.failed} failed)`,
  );
}
await emulator.stop();
const out = new URL('../../../.bench/', import.meta.url);
await mkdir(out, { recursive: true });
await writeFile(
  new URL('aws-emulator.json', out),
  JSON.stringify({ node: process.version, seconds: SECONDS, figures }, null, 2) + '\n',
);
