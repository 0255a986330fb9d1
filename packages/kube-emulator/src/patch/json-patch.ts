import { ApiError } from '../api/status.js';
import { clone, deepEqual, isObject, type Json, drop } from '../util/json.js';

const failed = (message: string): ApiError => new ApiError(422, 'Invalid', message);

const unescape = (token: string): string => token.replace(/~1/g, '/').replace(/~0/g, '~');

function tokens(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw failed(`the path "${pointer}" is not a JSON pointer`);
  return pointer.slice(1).split('/').map(unescape);
}

interface Location {
  parent: Json;
  key: string;
}

function locate(document: Json, path: string): Location {
  const parts = tokens(path);
  if (parts.length === 0) throw failed('the root of the document cannot be patched');
  let parent: Json = document;
  for (const part of parts.slice(0, -1)) {
    const next: Json | undefined = Array.isArray(parent)
      ? parent[Number(part)]
      : isObject(parent)
        ? parent[part]
        : undefined;
    if (next === undefined) throw failed(`doc is missing path: "${path}": missing value`);
    parent = next;
  }
  return { parent, key: parts[parts.length - 1]! };
}

function read(document: Json, path: string): Json {
  const { parent, key } = locate(document, path);
  const value = Array.isArray(parent) ? parent[Number(key)] : isObject(parent) ? parent[key] : undefined;
  if (value === undefined) throw failed(`doc is missing path: "${path}": missing value`);
  return value;
}

function remove(document: Json, path: string): Json {
  const { parent, key } = locate(document, path);
  const value = read(document, path);
  if (Array.isArray(parent)) parent.splice(Number(key), 1);
  else if (isObject(parent)) drop(parent, key);
  return value;
}

function add(document: Json, path: string, value: Json, replace = false): void {
  const { parent, key } = locate(document, path);
  if (Array.isArray(parent)) {
    const index = key === '-' ? parent.length : Number(key);
    if (!Number.isInteger(index) || index < 0 || index > parent.length) {
      throw failed(`add operation does not apply: doc is missing path: "${path}": missing value`);
    }
    if (replace) parent[index] = value;
    else parent.splice(index, 0, value);
  } else if (isObject(parent)) parent[key] = value;
  else throw failed(`add operation does not apply: doc is missing path: "${path}": missing value`);
}

/** RFC 6902 JSON patch, applied to a copy of the document. */
export function applyJsonPatch(document: Json, patch: unknown): Json {
  if (!Array.isArray(patch)) throw new ApiError(400, 'BadRequest', 'a JSON patch must be an array of operations');
  const result = clone(document);
  for (const operation of patch as Json[]) {
    if (!isObject(operation) || typeof operation.op !== 'string' || typeof operation.path !== 'string') {
      throw new ApiError(400, 'BadRequest', 'each JSON patch operation needs "op" and "path"');
    }
    const { op, path } = operation;
    const from = typeof operation.from === 'string' ? operation.from : '';
    switch (op) {
      case 'add':
        add(result, path, clone(operation.value ?? null));
        break;
      case 'remove':
        remove(result, path);
        break;
      case 'replace':
        read(result, path);
        add(result, path, clone(operation.value ?? null), true);
        break;
      case 'move':
        add(result, path, remove(result, from));
        break;
      case 'copy':
        add(result, path, clone(read(result, from)));
        break;
      case 'test':
        if (!deepEqual(read(result, path), operation.value)) throw failed(`testing value ${path} failed: test failed`);
        break;
      default:
        throw new ApiError(400, 'BadRequest', `Unexpected kind: ${op}`);
    }
  }
  return result;
}
