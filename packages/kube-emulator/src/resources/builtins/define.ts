import type { Schema } from '../../schema/types.js';
import { storageVersionHash, type Column, type ResourceDef, type Strategy } from '../types.js';

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
  /** The group version objects are stored as, when not their own (events.k8s.io Events are stored as v1 Events). */
  storedAs?: { group: string; version: string };
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
  // Kinds only created (reviews, TokenRequest) are never stored and have no storageVersionHash.
  ...(spec.verbs && !spec.verbs.includes('get')
    ? {}
    : {
        storageVersionHash: storageVersionHash(
          spec.storedAs?.group ?? spec.group,
          spec.storedAs?.version ?? spec.version,
          spec.kind,
        ),
      }),
});
