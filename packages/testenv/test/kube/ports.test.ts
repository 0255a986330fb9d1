import { expect } from 'chai';
import { once } from 'node:events';
import { createServer, type Server } from 'node:net';
import { freePorts, startOnFreePorts } from '../../src/kube/ports.js';

/** Listens on `port` of 127.0.0.1, failing as a server does whose port another process holds. */
async function listen(port: number): Promise<Server> {
  const server = createServer();
  server.listen(port, '127.0.0.1');
  const [error] = (await Promise.race([once(server, 'listening').then(() => []), once(server, 'error')])) as [Error?];
  if (error) throw error;
  return server;
}

describe('startOnFreePorts: a server that lost its port to another process', function () {
  let held: Server;
  const started: Server[] = [];
  beforeEach(async () => {
    held = await listen(0);
  });
  afterEach(() => {
    for (const server of [held, ...started.splice(0)]) server.close();
  });
  const heldPort = () => (held.address() as { port: number }).port;

  it('starts again on new ports, and only as often as it lost them', async () => {
    const ports: number[] = [];
    const server = await startOnFreePorts(async () => {
      const [port] = ports.length === 0 ? [heldPort()] : ((await freePorts(1)) as [number]);
      ports.push(port);
      return listen(port);
    });
    started.push(server);
    expect(ports).to.have.length(2);
    expect((server.address() as { port: number }).port)
      .to.equal(ports[1])
      .and.not.equal(heldPort());
  });

  it('gives up after three starts that all lost their port, with the last error', async () => {
    let attempts = 0;
    const error = await startOnFreePorts(() => {
      attempts++;
      return listen(heldPort());
    }).catch((caught: unknown) => caught);
    expect(attempts).to.equal(3);
    expect((error as Error).message).to.match(/EADDRINUSE: address already in use/);
  });

  it('does not start again when the start failed for another reason', async () => {
    let attempts = 0;
    const error = await startOnFreePorts(() => {
      attempts++;
      return Promise.reject(new Error('etcd exited (1) while starting: member has already been bootstrapped'));
    }).catch((caught: unknown) => caught);
    expect(attempts).to.equal(1);
    expect((error as Error).message).to.contain('already been bootstrapped');
  });
});
