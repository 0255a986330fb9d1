import { readFileSync } from 'node:fs';

/**
 * Keymaster's version: the reconciler package's `version`, read once from its package.json, which
 * sits beside src/ (tsx), dist/ (the build) and in the image (/app/package.json). One source of truth
 * for `keymaster --version`, the first log line and keymaster_build_info; CHANGELOG.md and the Helm
 * chart's appVersion follow it (test/deploy/release.test.ts).
 */
export const KEYMASTER_VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
