/**
 * Benchmark of the kube-emulator (`pnpm bench`): 10,000 custom objects created while 10 watchers
 * stream them, then lists of all of them. The emulator runs in its own process (one core); the
 * figures go into docs/emulators/kube-emulator.md between the bench markers.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { cpus } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const OBJECTS = 10_000;
const WATCHERS = 10;
const CONCURRENCY = 16;
const LISTS = 5;
const ROOT = new URL('../../../', import.meta.url);
const DOC = fileURLToPath(new URL('docs/emulators/kube-emulator.md', ROOT));
const PATH = '/apis/infrastructure.keymaster.dev/v1beta1';

const cluster = (index: number) => ({
  apiVersion: 'infrastructure.keymaster.dev/v1beta1',
  kind: 'AWSCluster',
  metadata: { name: `cluster-${index}`, labels: { shard: String(index % 10) } },
  spec: {
    region: 'eu-west-1',
    identityRef: { kind: 'AWSClusterRoleIdentity', name: `tenant-${index % 50}` },
    additionalTags: { team: `team-${index % 7}`, cost: 'shared' },
  },
});

async function startEmulator(): Promise<{ url: string; stop: () => void }> {
  const cli = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
  const crds = fileURLToPath(new URL('deploy/crds', ROOT));
  const child = spawn(
    process.execPath,
    ['--conditions=@keymaster/source', '--import', 'tsx', cli, '--port', '0', '--crds', crds],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const line = await new Promise<string>((resolve) => createInterface({ input: child.stdout }).once('line', resolve));
  return { url: line.replace('listening on ', ''), stop: () => child.kill('SIGTERM') };
}

interface Watcher {
  events: number;
  maxGapMs: number;
  doneAt: number;
  close: () => void;
}

async function watch(url: string, resourceVersion: string): Promise<Watcher> {
  const controller = new AbortController();
  const response = await fetch(`${url}${PATH}/awsclusters?watch=true&resourceVersion=${resourceVersion}`, {
    signal: controller.signal,
  });
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const watcher: Watcher = { events: 0, maxGapMs: 0, doneAt: 0, close: () => controller.abort() };
  let last = 0;
  void (async () => {
    const decoder = new TextDecoder();
    let pending = '';
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        pending += decoder.decode(value, { stream: true });
        const lines = pending.split('\n');
        pending = lines.pop() ?? '';
        const now = performance.now();
        if (last > 0) watcher.maxGapMs = Math.max(watcher.maxGapMs, now - last);
        last = now;
        watcher.events += lines.length;
        if (watcher.events >= OBJECTS && watcher.doneAt === 0) watcher.doneAt = now;
      }
    } catch {
      // closed
    }
  })();
  return watcher;
}

/** POSTs with node:http and a keep-alive agent: fetch's own overhead would dominate the figures. */
function post(agent: Agent, url: URL, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

async function createAll(url: string): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const target = new URL(`${url}${PATH}/namespaces/default/awsclusters`);
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < OBJECTS) {
        const index = next++;
        const status = await post(agent, target, JSON.stringify(cluster(index)));
        if (status !== 201) throw new Error(`create ${index}: HTTP ${status}`);
      }
    }),
  );
  agent.destroy();
  return performance.now() - start;
}

async function timeList(
  url: string,
  query: string,
  accept = 'application/json',
): Promise<{ ms: number; bytes: number; items: number }> {
  const times: number[] = [];
  let bytes = 0;
  let items = 0;
  for (let run = 0; run < LISTS; run++) {
    const start = performance.now();
    const response = await fetch(`${url}${PATH}/awsclusters${query}`, { headers: { Accept: accept } });
    const body = await response.text();
    times.push(performance.now() - start);
    bytes = body.length;
    const parsed = JSON.parse(body) as { items?: unknown[]; rows?: unknown[] };
    items = (parsed.items ?? parsed.rows ?? []).length;
  }
  times.sort((a, b) => a - b);
  return { ms: times[Math.floor(times.length / 2)]!, bytes, items };
}

const round = (value: number): string => (value >= 100 ? value.toFixed(0) : value.toFixed(1));

async function main(): Promise<void> {
  const emulator = await startEmulator();
  try {
    const initial = (await (await fetch(`${emulator.url}${PATH}/awsclusters`)).json()) as {
      metadata: { resourceVersion: string };
    };
    const watchers = await Promise.all(
      Array.from({ length: WATCHERS }, () => watch(emulator.url, initial.metadata.resourceVersion)),
    );
    const createStart = performance.now();
    const createMs = await createAll(emulator.url);
    const createdAt = createStart + createMs;
    for (let wait = 0; wait < 600 && watchers.some((watcher) => watcher.events < OBJECTS); wait++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const delivered = Math.min(...watchers.map((watcher) => watcher.events));
    const lagMs = Math.max(...watchers.map((watcher) => watcher.doneAt)) - createdAt;
    const maxGapMs = Math.max(...watchers.map((watcher) => watcher.maxGapMs));
    for (const watcher of watchers) watcher.close();
    const full = await timeList(emulator.url, '');
    const table = await timeList(emulator.url, '', 'application/json;as=Table;v=v1;g=meta.k8s.io');
    const selected = await timeList(emulator.url, '?labelSelector=shard%3D3');
    const page = await timeList(emulator.url, '?limit=500');
    const rows = [
      [
        'machine',
        `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, Node ${process.version}; emulator in its own process`,
      ],
      [
        `create ${OBJECTS} AWSClusters (${CONCURRENCY} concurrent clients)`,
        `${round(createMs)} ms (${round((OBJECTS / createMs) * 1000)} objects/s)`,
      ],
      [
        `watch fan-out to ${WATCHERS} watchers`,
        `${delivered} of ${OBJECTS} events each; last event ${round(Math.max(0, lagMs))} ms after the last create; longest pause between events ${round(maxGapMs)} ms`,
      ],
      [`list all ${full.items} (JSON, ${round(full.bytes / 1e6)} MB)`, `${round(full.ms)} ms (median of ${LISTS})`],
      [`list all ${table.items} as a Table (kubectl get)`, `${round(table.ms)} ms`],
      [`list with labelSelector (${selected.items} items)`, `${round(selected.ms)} ms`],
      [`first page of limit=500`, `${round(page.ms)} ms`],
    ];
    const markdown = [
      '| measure | result |',
      '| --- | --- |',
      ...rows.map(([measure, result]) => `| ${measure} | ${result} |`),
    ].join('\n');
    process.stdout.write(`${markdown}\n`);
    const doc = readFileSync(DOC, 'utf8');
    const updated = doc.replace(/(<!-- bench:start -->\n)[\s\S]*?(<!-- bench:end -->)/, `$1${markdown}\n$2`);
    writeFileSync(DOC, updated);
  } finally {
    emulator.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
