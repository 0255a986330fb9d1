import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, relative } from 'node:path';
import { generatedFiles } from './generated-files.js';

for (const [path, text] of await generatedFiles()) {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
  console.log(`wrote ${relative(process.cwd(), path)}`);
}
