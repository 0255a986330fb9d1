import type { Schema } from '../../schema/types.js';
import type { Column, ResourceDef, Strategy } from '../types.js';

export interface BuiltinSpec {
  group: string;
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  statusSubresource?: boolean;
  storageKey?: string;
  tracksGeneration?: boolean;
  schema: Schema;
  columns: Column[];
  strategy?: Strategy;
  returnsDeletedObject?: boolean;
  verbs?: string[];
}

/** A built-in resource, with the derived names filled in. */
export const defineBuiltin = (spec: BuiltinSpec): ResourceDef => ({
  group: spec.group,
  version: spec.version,
  plural: spec.plural,
  singular: spec.kind.toLowerCase(),
  kind: spec.kind,
  listKind: `${spec.kind}List`,
  namespaced: spec.namespaced,
  shortNames: spec.shortNames ?? [],
  categories: spec.categories ?? [],
  statusSubresource: spec.statusSubresource ?? false,
  tracksGeneration: spec.tracksGeneration ?? false,
  storageKey: spec.storageKey ?? (spec.group ? `${spec.plural}.${spec.group}` : spec.plural),
  schema: spec.schema,
  columns: spec.columns,
  strategy: spec.strategy ?? {},
  strategicMergePatch: true,
  returnsDeletedObject: spec.returnsDeletedObject ?? false,
  ...(spec.verbs ? { verbs: spec.verbs } : {}),
});
