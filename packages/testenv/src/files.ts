import { accessSync, constants } from 'node:fs';

/** Whether `path` is a file this process may execute: how a provisioned binary is told from a missing one. */
export function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
