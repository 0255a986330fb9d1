import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** kubectl 1.33, installed beside the `kubectl` on PATH (the Google Cloud SDK's bin folder). */
export function kubectl133(): string {
  const onPath = (process.env['PATH'] ?? '')
    .split(':')
    .map((dir) => join(dir, 'kubectl'))
    .find((path) => existsSync(path));
  const path = join(onPath ? dirname(realpathSync(onPath)) : '/usr/lib/google-cloud-sdk/bin', 'kubectl.1.33');
  if (!existsSync(path))
    throw new Error(`kubectl 1.33 not found at ${path}: install the Google Cloud SDK's kubectl components`);
  return path;
}
