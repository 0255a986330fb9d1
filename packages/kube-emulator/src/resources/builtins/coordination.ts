import { boolean, integer, kindSchema, object, string, timestamp } from '../../schema/builders.js';
import { microTime } from '../../schema/micro-time.js';
import { ageColumn, column, nameColumn } from '../../table/columns.js';
import { objectAt } from '../../util/json.js';
import type { ResourceDef } from '../types.js';
import { defineBuiltin } from './define.js';

export const leases: ResourceDef = defineBuiltin({
  group: 'coordination.k8s.io',
  version: 'v1',
  plural: 'leases',
  kind: 'Lease',
  namespaced: true,
  schema: kindSchema('Lease defines a lease concept.', {
    spec: object('The specification of the Lease.', {
      holderIdentity: string('The identity of the holder of a current lease.'),
      leaseDurationSeconds: integer('Duration that candidates for a lease need to wait to force acquire it.'),
      acquireTime: microTime('When the current lease was acquired.'),
      renewTime: microTime('When the current holder last updated the lease.'),
      leaseTransitions: integer('The number of transitions of a lease between holders.'),
      strategy: string('The strategy for picking the leader for coordinated leader election.'),
      preferredHolder: string('The preferred holder of the lease.'),
    }),
    status: object('Unused; kept for forward compatibility.', {
      observedAt: timestamp('Unused.'),
      ready: boolean('Unused.'),
    }),
  }),
  columns: [
    nameColumn(),
    column(
      'Holder',
      'string',
      'holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field.',
      (o) => objectAt(o, 'spec')?.holderIdentity ?? '',
    ),
    ageColumn,
  ],
});
