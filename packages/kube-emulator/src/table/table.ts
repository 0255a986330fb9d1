import type { ResourceDef } from '../resources/types.js';
import { objectAt, type JsonObject } from '../util/json.js';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

/** The metadata-only view of an object (PartialObjectMetadata). */
export const partialObject = (object: JsonObject): JsonObject => ({
  kind: 'PartialObjectMetadata',
  apiVersion: 'meta.k8s.io/v1',
  metadata: objectAt(object, 'metadata') ?? {},
});

/**
 * A meta.k8s.io/v1 Table of stored objects, as `kubectl get` asks for it: the resource's columns,
 * one row per object, and the object itself (by default its metadata only).
 */
export function toTable(
  resource: ResourceDef,
  stored: JsonObject[],
  serve: (stored: JsonObject) => JsonObject,
  includeObject: IncludeObject,
  listMetadata: JsonObject,
): JsonObject {
  // The Table's ListMeta omits an empty continue (a custom resource list carries `continue: ""`).
  const { continue: more, ...metadata } = listMetadata;
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: more ? { ...metadata, continue: more } : metadata,
    columnDefinitions: resource.columns.map((column) => ({
      name: column.name,
      type: column.type,
      format: column.format ?? '',
      description: column.description,
      priority: column.priority,
    })),
    rows: stored.map((object) => {
      const row: JsonObject = { cells: resource.columns.map((column) => column.cell(object)) };
      if (includeObject === 'Object') row.object = serve(object);
      else if (includeObject === 'Metadata') row.object = partialObject(object);
      return row;
    }),
  };
}
