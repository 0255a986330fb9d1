import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseBody, readBody } from '../api/body.js';
import { sendJson } from '../api/respond.js';
import { badRequest, methodNotAllowed, notFound, pathNotFound } from '../api/status.js';
import { KubeEmulatorError } from '../errors.js';
import type { FaultRule, Faults } from './faults.js';
import type { Stats } from './stats.js';

const FAULTS = { group: '', plural: 'faults' };

/**
 * The admin paths under `/_emulator/`: request statistics and fault injection over HTTP, for
 * tests and benchmarks that drive the emulator from another process.
 */
export function adminHandler(stats: Stats, faults: Faults) {
  return async (segments: string[], request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const method = request.method ?? 'GET';
    const url = new URL(request.url ?? '/', 'http://localhost');
    const [area, id] = segments;
    if (area === 'stats' && id === undefined) {
      if (method === 'GET') {
        sendJson(response, 200, { total: stats.total(), requests: stats.requests() });
        return;
      }
      if (method === 'DELETE') {
        stats.reset();
        sendJson(response, 200, { total: 0, requests: [] });
        return;
      }
      throw methodNotAllowed();
    }
    if (area === 'faults') {
      if (id !== undefined) {
        if (method !== 'DELETE') throw methodNotAllowed();
        if (!faults.remove(id)) throw notFound(FAULTS, id);
        sendJson(response, 200, { faults: faults.list() });
        return;
      }
      if (method === 'GET') {
        sendJson(response, 200, { faults: faults.list() });
        return;
      }
      if (method === 'DELETE') {
        faults.clear();
        sendJson(response, 200, { faults: [] });
        return;
      }
      if (method === 'POST') {
        const rule = parseBody(await readBody(request), 'application/json') as FaultRule;
        try {
          sendJson(response, 201, faults.add(rule));
          return;
        } catch (error) {
          if (error instanceof KubeEmulatorError) throw badRequest(error.message);
          throw error;
        }
      }
      throw methodNotAllowed();
    }
    if (area === 'watches' && id === 'drop') {
      if (method !== 'POST') throw methodNotAllowed();
      sendJson(response, 200, { dropped: faults.dropWatchesNow(url.searchParams.get('resource') ?? undefined) });
      return;
    }
    throw pathNotFound();
  };
}
