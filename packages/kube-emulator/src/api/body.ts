import type { IncomingMessage } from 'node:http';
import { parse as parseYaml } from 'yaml';
import { goJsonSyntaxError, goJsonType, summarizeData } from '../util/go-json.js';
import { isObject } from '../util/json.js';
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

/** The struct kube-apiserver's JSON serializer first decodes a body into, to find its kind. */
const FIND_KIND =
  'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

/**
 * Why kube-apiserver's JSON serializer cannot find the kind of a body, in Go's words: a syntax
 * error, a value that is not an object, an apiVersion or kind that is not a string.
 */
function kindProblem(bytes: Buffer): { problem: string } | { value: unknown } {
  const syntax = goJsonSyntaxError(bytes);
  if (syntax) return { problem: syntax };
  const value = JSON.parse(bytes.toString('utf8')) as unknown;
  if (value === null) return { value: {} };
  if (!isObject(value))
    return { problem: `json: cannot unmarshal ${goJsonType(value)} into Go value of type ${FIND_KIND}` };
  for (const field of ['apiVersion', 'kind']) {
    const item = value[field];
    if (item !== undefined && item !== null && typeof item !== 'string') {
      return { problem: `json: cannot unmarshal ${goJsonType(item)} into Go struct field .${field} of type string` };
    }
  }
  return { value };
}

/** A JSON object body of a create, update or review: kube-apiserver's 400 when its kind cannot be read. */
export function decodeObjectBody(bytes: Buffer, kind: string): unknown {
  const decoded = kindProblem(bytes);
  if ('value' in decoded) return decoded.value;
  throw badRequest(
    `the object provided is unrecognized (must be of type ${kind}): couldn't get version/kind; json parse error: ${decoded.problem} (${summarizeData(bytes)})`,
  );
}

/** A DELETE's DeleteOptions body: none is no options; one that is not JSON is a 400. */
export function decodeDeleteOptions(bytes: Buffer): unknown {
  if (bytes.length === 0) return {};
  const decoded = kindProblem(bytes);
  if ('value' in decoded) return decoded.value;
  throw badRequest(`couldn't get version/kind; json parse error: ${decoded.problem}`);
}

/** A JSON patch, merge patch or strategic merge patch body: kube-apiserver checks it is JSON first (1.37). */
export function decodePatchBody(bytes: Buffer): unknown {
  if (goJsonSyntaxError(bytes)) throw badRequest('invalid JSON patch');
  return JSON.parse(bytes.toString('utf8')) as unknown;
}
