import { atomicList, kindSchema, object, string } from '../../schema/builders.js';
import type { Schema } from '../../schema/types.js';
import { ageColumn, nameColumn } from '../../table/columns.js';
import { isObject, objectAt, type JsonObject } from '../../util/json.js';
import type { ResourceDef } from '../types.js';
import { defineBuiltin } from './define.js';

const quantities = (description: string): Schema => ({
  type: 'object',
  description,
  additionalProperties: { 'x-kubernetes-int-or-string': true },
});

/** Quantities are strings on the wire, whatever the client sent (`5` is served as `"5"`). */
function quantitiesAsStrings(list: unknown): void {
  if (!isObject(list)) return;
  for (const [name, value] of Object.entries(list)) if (typeof value === 'number') list[name] = String(value);
}

export const resourceQuotas: ResourceDef = defineBuiltin({
  group: '',
  version: 'v1',
  plural: 'resourcequotas',
  kind: 'ResourceQuota',
  namespaced: true,
  shortNames: ['quota'],
  statusSubresource: true,
  schema: kindSchema('ResourceQuota sets aggregate quota restrictions enforced per namespace', {
    spec: object('Spec defines the desired quota.', {
      hard: quantities('hard is the set of desired hard limits for each named resource.'),
      scopes: atomicList('A collection of filters that must match each object tracked by a quota.', string('A scope.')),
    }),
    status: object('Status defines the actual enforced quota and its current usage.', {
      hard: quantities('Hard is the set of enforced hard limits for each named resource.'),
      used: quantities('Used is the current observed total usage of the resource in the namespace.'),
    }),
  }),
  columns: [nameColumn(), ageColumn],
  strategy: {
    // As kube-apiserver: a new quota's status is empty until the resourcequota controller fills it.
    initialize(quota) {
      quota.status = {};
    },
    normalize(quota) {
      quantitiesAsStrings(objectAt(quota, 'spec')?.hard);
      quantitiesAsStrings(objectAt(quota, 'status')?.hard);
      quantitiesAsStrings(objectAt(quota, 'status')?.used);
    },
  },
});

/** The object-count name a quota limits a resource by: `count/<plural>` (core) or `count/<plural>.<group>`. */
export const objectCountName = (resource: { plural: string; group: string }): string =>
  `count/${resource.group ? `${resource.plural}.${resource.group}` : resource.plural}`;

/** A quantity that is a whole count (`"5"`), else undefined: only object counts are enforced. */
export const countOf = (quantity: unknown): number | undefined =>
  typeof quantity === 'string' && /^[0-9]+$/.test(quantity) ? Number(quantity) : undefined;

/** A quota's status.hard or status.used. */
export const statusList = (quota: JsonObject, field: 'hard' | 'used'): JsonObject | undefined =>
  objectAt(objectAt(quota, 'status'), field);
