import { rm } from 'node:fs/promises';
import { get } from 'node:http';
import { join } from 'node:path';
import { freePorts, startOnFreePorts } from './ports.js';
import { ServerProcess } from './process.js';

function healthy(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    get(`${url}/health`, { timeout: 2000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve(res.statusCode === 200 && /"health":\s*"true"/.test(Buffer.concat(chunks).toString())),
      );
    }).on('error', () => resolve(false));
  });
}

/** Starts a one-member etcd on free loopback ports, its data in `dir/etcd`; resolves once healthy. */
export function startEtcd(
  binary: string,
  dir: string,
  timeoutMs: number,
): Promise<{ server: ServerProcess; url: string }> {
  const dataDir = join(dir, 'etcd');
  return startOnFreePorts(async () => {
    // A start that lost its port may have begun the data dir with the other peer URL in it.
    await rm(dataDir, { recursive: true, force: true });
    const [clientPort, peerPort] = (await freePorts(2)) as [number, number];
    const url = `http://127.0.0.1:${clientPort}`;
    const peer = `http://127.0.0.1:${peerPort}`;
    const server = await ServerProcess.start(
      'etcd',
      binary,
      [
        '--name=testenv',
        `--data-dir=${dataDir}`,
        `--listen-client-urls=${url}`,
        `--advertise-client-urls=${url}`,
        `--listen-peer-urls=${peer}`,
        `--initial-advertise-peer-urls=${peer}`,
        `--initial-cluster=testenv=${peer}`,
        // Throwaway data: skipping fsync makes writes fast, as envtest does.
        '--unsafe-no-fsync=true',
        '--log-level=warn',
      ],
      join(dir, 'etcd.log'),
    );
    await server.waitReadyOrStop(timeoutMs, () => healthy(url));
    return { server, url };
  });
}
