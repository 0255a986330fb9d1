import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { REPO_ROOT } from './controller-process.js';

/**
 * The shell block that follows `<!-- upgrade-notes:NAME ... -->` in docs/operations.md: the upgrade
 * notes' commands, which the upgrade e2e runs as written.
 */
export async function upgradeNotes(name: string): Promise<string> {
  const doc = await readFile(join(REPO_ROOT, 'docs/operations.md'), 'utf8');
  const block = new RegExp(`<!-- upgrade-notes:${name}\\b[^>]*-->\\s*\`\`\`sh\\n([\\s\\S]*?)\`\`\``).exec(doc);
  if (!block) throw new Error(`docs/operations.md has no shell block marked <!-- upgrade-notes:${name} -->`);
  return block[1]!;
}
