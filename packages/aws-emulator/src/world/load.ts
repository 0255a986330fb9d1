import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { InvalidWorldError } from '../errors.js';
import type { World } from './types.js';
import { validateWorld } from './validate.js';

/** Reads a world file (YAML, or JSON, which is YAML too) and validates it. */
export async function loadWorldFile(path: string): Promise<World> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new InvalidWorldError(`cannot read the world file ${path}: ${(error as Error).message}`, { cause: error });
  }
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (error) {
    throw new InvalidWorldError(`the world file ${path} is not valid YAML or JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return validateWorld(raw);
}
