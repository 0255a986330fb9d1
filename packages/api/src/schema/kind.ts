import type { JSONSchemaProps, ValidationRule } from './openapi.js';

export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  jsonPath: string;
  description: string;
  priority?: number;
}

/** A permission the controller needs for a kind beyond watching it and writing its status and finalizers. */
export interface ControllerRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  /** Why the controller needs it, and how to narrow it: a comment in the generated RBAC. */
  why: string;
}

/** Everything that makes one of our kinds: its names, scope, schema and how kubectl shows it. */
export interface KindDefinition {
  kind: string;
  plural: string;
  singular: string;
  shortNames: string[];
  scope: 'Namespaced' | 'Cluster';
  description: string;
  spec: JSONSchemaProps;
  /** Absent: the kind has no status subresource (everything it holds is spec). */
  status?: JSONSchemaProps;
  /** Whether `spec` must be present. */
  specRequired: boolean;
  /** CEL rules on the whole object (they may read metadata.name). */
  rules?: ValidationRule[];
  printerColumns: PrinterColumn[];
  /**
   * How `clusterctl move` takes the kind's objects (the CRD's label): `move`, every object of the
   * moved namespace; `move-hierarchy`, every object and what it owns; absent, only objects in a
   * Cluster API Cluster's ownerReference hierarchy.
   */
  clusterctlMove?: 'move' | 'move-hierarchy';
  /** Identity kinds: what else the controller must be allowed to do for the kind (generated into its RBAC). */
  controllerRules?: ControllerRule[];
}

export const AGE_COLUMN: PrinterColumn = {
  name: 'Age',
  type: 'date',
  jsonPath: '.metadata.creationTimestamp',
  description: 'Time since creation.',
};
