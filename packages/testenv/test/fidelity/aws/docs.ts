import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { withSection } from './table.js';

/** docs/emulators.md, which holds the section. */
export const EMULATORS_DOC = fileURLToPath(new URL('../../../../../docs/emulators.md', import.meta.url));

/** The doc as it should read with this section: as `pnpm format` leaves it, so that `pnpm lint` passes. */
export async function docWithSection(section: string): Promise<{ current: string; wanted: string }> {
  const current = await readFile(EMULATORS_DOC, 'utf8');
  const config = (await resolveConfig(EMULATORS_DOC)) ?? {};
  const wanted = await format(withSection(current, section), { ...config, filepath: EMULATORS_DOC });
  return { current, wanted };
}

export async function writeDoc(text: string): Promise<void> {
  await writeFile(EMULATORS_DOC, text);
}
