import { createServer, type Server } from 'node:net';

/**
 * `count` distinct TCP ports free on 127.0.0.1 right now, for servers that take a port number: all
 * are held open until each has its number, so the OS cannot hand out the same one twice.
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    for (let index = 0; index < count; index++) {
      const server = createServer();
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', resolve);
      });
    }
    return servers.map((server) => (server.address() as { port: number }).port);
  } finally {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  }
}

/** How many times a server is started on new ports when another process took its own. */
const PORT_ATTEMPTS = 3;

/**
 * Runs `start`, which takes its ports from freePorts, again when the server it started lost one of
 * them: freePorts releases a port before the server binds it, and on a machine running suites side by
 * side (mocha's --parallel, other processes' connections) another process may take it in between.
 * Go servers say `bind: address already in use`, Node.js `EADDRINUSE: address already in use`.
 */
export async function startOnFreePorts<T>(start: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (error) {
      const lostPort = error instanceof Error && /address already in use/i.test(error.message);
      if (!lostPort || attempt === PORT_ATTEMPTS) throw error;
    }
  }
}
