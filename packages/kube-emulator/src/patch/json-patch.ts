import { ApiError } from '../api/status.js';
import { clone, deepEqual, isObject, type Json, drop } from '../util/json.js';

/** kube-apiserver words every failed operation alike (evanphx/json-patch's reason is not shown). */
const failed = (): ApiError =>
  new ApiError(422, 'Invalid', 'the server rejected our request due to an error in our request', {});

const unescape = (token: string): string => token.replace(/~1/g, '/').replace(/~0/g, '~');

function tokens(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw failed();
  return pointer.slice(1).split('/').map(unescape);
}

interface Location {
  parent: Json;
  key: string;
}

function locate(document: Json, path: string): Location {
  const parts = tokens(path);
  if (parts.length === 0) throw failed();
  let parent: Json = document;
  for (const part of parts.slice(0, -1)) {
    const next: Json | undefined = Array.isArray(parent)
      ? parent[Number(part)]
      : isObject(parent)
        ? parent[part]
        : undefined;
    if (next === undefined) throw failed();
    parent = next;
  }
  return { parent, key: parts[parts.length - 1]! };
}

function read(document: Json, path: string): Json {
  const { parent, key } = locate(document, path);
  const value = Array.isArray(parent) ? parent[Number(key)] : isObject(parent) ? parent[key] : undefined;
  if (value === undefined) throw failed();
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
      throw failed();
    }
    if (replace) parent[index] = value;
    else parent.splice(index, 0, value);
  } else if (isObject(parent)) parent[key] = value;
  else throw failed();
}

/** RFC 6902 JSON patch, applied to a copy of the document. */
export function applyJsonPatch(document: Json, patch: Json[]): Json {
  const result = clone(document);
  for (const operation of patch) {
    if (!isObject(operation) || typeof operation.op !== 'string' || typeof operation.path !== 'string') throw failed();
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
        // A missing key of an object is set, as kube-apiserver's JSON patch does; a missing item is an error.
        if (!isObject(locate(result, path).parent)) read(result, path);
        add(result, path, clone(operation.value ?? null), true);
        break;
      case 'move':
        add(result, path, remove(result, from));
        break;
      case 'copy':
        add(result, path, clone(read(result, from)));
        break;
      case 'test':
        if (!deepEqual(read(result, path), operation.value)) throw failed();
        break;
      default:
        throw failed();
    }
  }
  return result;
}
