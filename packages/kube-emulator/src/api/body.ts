import type { IncomingMessage } from 'node:http';
import { parse as parseYaml } from 'yaml';
import { ApiError, badRequest } from './status.js';

/** The apiserver's request body limit. */
const LIMIT = 3 * 1024 * 1024;

export async function readBody(request: IncomingMessage): Promise<string> {
  return (await readBytes(request)).toString('utf8');
}

export async function readBytes(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > LIMIT) throw new ApiError(413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Parses a JSON (or, for apply patches and YAML bodies, YAML) request body. */
export function parseBody(text: string, contentType: string): unknown {
  if (text.trim() === '') throw badRequest('the request body is empty');
  const yaml = contentType.includes('yaml');
  try {
    // sigs.k8s.io/yaml reads YAML 1.1: `y`, `yes` and `on` are booleans there.
    return yaml ? (parseYaml(text, { version: '1.1' }) as unknown) : (JSON.parse(text) as unknown);
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0]! : String(error);
    throw badRequest(`error decoding ${yaml ? 'YAML' : 'JSON'}: ${reason}`);
  }
}
