import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { KubeEmulatorError } from '../errors.js';
import { isObject, type JsonObject } from '../util/json.js';

/** The CustomResourceDefinitions in a folder's YAML and JSON files (other documents are skipped). */
export function readCrdFolder(folder: string): { file: string; crd: JsonObject }[] {
  let files: string[];
  try {
    files = readdirSync(folder)
      .filter((file) => /\.(ya?ml|json)$/.test(file))
      .sort();
  } catch (error) {
    throw new KubeEmulatorError('ERR_KEYMASTER_KUBE_EMULATOR_CRDS', `cannot read the CRD folder ${folder}`, {
      hint: 'pass a folder of CRD YAML files to --crds (crds), e.g. deploy/crds',
      cause: error,
    });
  }
  return files.flatMap((file) => {
    const path = join(folder, file);
    const documents = parseAllDocuments(readFileSync(path, 'utf8'));
    return documents.flatMap((document) => {
      if (document.errors.length > 0) {
        throw new KubeEmulatorError('ERR_KEYMASTER_KUBE_EMULATOR_CRDS', `${path}: ${document.errors[0]!.message}`, {
          hint: 'fix the YAML of that file, or move it out of the CRD folder',
        });
      }
      const value: unknown = document.toJS();
      return isObject(value) && value.kind === 'CustomResourceDefinition' ? [{ file: path, crd: value }] : [];
    });
  });
}
