import type { Sequence, Step } from '../sequence.js';
import { cluster, configMap, PATHS } from './objects.js';

const { clusters, configMaps } = PATHS;
const FINALIZER = 'fidelity.keymaster.dev/hold';

/** An owner ConfigMap and two dependents that name it in ownerReferences (steps 0-2). */
const family: Step[] = [
  { request: `POST ${configMaps}`, body: configMap('owner') },
  ...['child-a', 'child-b'].map((name) => ({
    request: `POST ${configMaps}`,
    body: configMap(
      name,
      {},
      { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: '{{0.metadata.uid}}' }] },
    ),
  })),
];

export const deletion: Sequence[] = [
  {
    name: 'deletion: a finalizer holds the object until removed',
    area: 'deletion',
    steps: [
      { request: `POST ${configMaps}`, body: configMap('held', {}, { finalizers: [FINALIZER] }) },
      { request: `DELETE ${configMaps}/held` },
      { request: `GET ${configMaps}/held` },
      { request: `DELETE ${configMaps}/held` },
      { request: `PATCH ${configMaps}/held`, type: 'merge', body: { metadata: { finalizers: null } } },
      { request: `GET ${configMaps}/held` },
    ],
  },
  {
    name: 'deletion: a custom resource held by a finalizer',
    area: 'deletion',
    steps: [
      { request: `POST ${clusters}`, body: cluster('held', { region: 'eu-west-1' }, { finalizers: [FINALIZER] }) },
      { request: `DELETE ${clusters}/held` },
      { request: `PATCH ${clusters}/held`, type: 'merge', body: { spec: { region: 'us-east-1' } } },
      { request: `PATCH ${clusters}/held`, type: 'json-patch', body: [{ op: 'remove', path: '/metadata/finalizers' }] },
      { request: `GET ${clusters}/held` },
    ],
  },
  {
    name: 'deletion: no new finalizers once deleting',
    area: 'deletion',
    steps: [
      { request: `POST ${configMaps}`, body: configMap('closing', {}, { finalizers: [FINALIZER] }) },
      { request: `DELETE ${configMaps}/closing` },
      {
        request: `PATCH ${configMaps}/closing`,
        type: 'merge',
        body: { metadata: { finalizers: [FINALIZER, 'other.example.com/x'] } },
      },
      { request: `PATCH ${configMaps}/closing`, type: 'merge', body: { metadata: { deletionTimestamp: null } } },
      { request: `PATCH ${configMaps}/closing`, type: 'merge', body: { metadata: { finalizers: [] } } },
    ],
  },
  {
    name: 'deletion: an invalid finalizer name',
    area: 'deletion',
    steps: [
      { request: `POST ${configMaps}`, body: configMap('bad-finalizer', {}, { finalizers: ['no-domain'] }) },
      {
        request: `POST ${clusters}`,
        body: cluster('bad-finalizer', { region: 'eu-west-1' }, { finalizers: ['Not Valid/x'] }),
      },
    ],
  },
  {
    name: 'deletion: background propagation deletes the dependents',
    area: 'deletion',
    steps: [
      ...family,
      { request: `DELETE ${configMaps}/owner`, body: { propagationPolicy: 'Background' } },
      { request: `GET ${configMaps}/child-a`, until: 404 },
      { request: `GET ${configMaps}/child-b`, until: 404 },
    ],
  },
  {
    name: 'deletion: foreground propagation deletes the dependents first',
    area: 'deletion',
    steps: [
      ...family,
      { request: `DELETE ${configMaps}/owner?propagationPolicy=Foreground` },
      { request: `GET ${configMaps}/owner`, until: 404 },
      { request: `GET ${configMaps}/child-a` },
      { request: `GET ${configMaps}/child-b` },
    ],
  },
  {
    name: 'deletion: foreground propagation waits for a dependent with a finalizer',
    area: 'deletion',
    steps: [
      { request: `POST ${configMaps}`, body: configMap('owner') },
      {
        request: `POST ${configMaps}`,
        body: configMap(
          'stuck',
          {},
          {
            finalizers: [FINALIZER],
            ownerReferences: [
              {
                apiVersion: 'v1',
                kind: 'ConfigMap',
                name: 'owner',
                uid: '{{0.metadata.uid}}',
                blockOwnerDeletion: true,
              },
            ],
          },
        ),
      },
      { request: `DELETE ${configMaps}/owner?propagationPolicy=Foreground` },
      {
        request: `GET ${configMaps}/stuck`,
        until: ({ body }) =>
          (body as { metadata: { deletionTimestamp?: string } }).metadata.deletionTimestamp !== undefined,
        pick: (body) => (body as { metadata: unknown }).metadata,
      },
      { request: `GET ${configMaps}/owner`, pick: (body) => (body as { metadata: unknown }).metadata },
      { request: `PATCH ${configMaps}/stuck`, type: 'merge', body: { metadata: { finalizers: null } } },
      { request: `GET ${configMaps}/owner`, until: 404 },
    ],
  },
  {
    name: 'deletion: orphan propagation keeps the dependents without the reference',
    area: 'deletion',
    steps: [
      ...family,
      { request: `DELETE ${configMaps}/owner`, body: { propagationPolicy: 'Orphan' } },
      { request: `GET ${configMaps}/owner`, until: 404 },
      { request: `GET ${configMaps}/child-a` },
    ],
  },
  {
    name: 'deletion: orphanDependents=true (the old option) orphans',
    area: 'deletion',
    steps: [
      ...family,
      { request: `DELETE ${configMaps}/owner`, body: { orphanDependents: true } },
      { request: `GET ${configMaps}/owner`, until: 404 },
      { request: `GET ${configMaps}/child-b` },
    ],
  },
  {
    name: 'deletion: a custom resource owning a ConfigMap',
    area: 'deletion',
    steps: [
      { request: `POST ${clusters}`, body: cluster('owner') },
      {
        request: `POST ${configMaps}`,
        body: configMap(
          'owned',
          {},
          {
            ownerReferences: [
              {
                apiVersion: 'infrastructure.keymaster.dev/v1beta1',
                kind: 'AWSCluster',
                name: 'owner',
                uid: '{{0.metadata.uid}}',
                controller: true,
              },
            ],
          },
        ),
      },
      { request: `DELETE ${clusters}/owner` },
      { request: `GET ${configMaps}/owned`, until: 404 },
    ],
  },
  {
    name: 'deletion: a dependent whose owner does not exist is collected',
    area: 'deletion',
    steps: [
      {
        request: `POST ${configMaps}`,
        body: configMap(
          'dangling',
          {},
          {
            ownerReferences: [
              { apiVersion: 'v1', kind: 'ConfigMap', name: 'ghost', uid: '6f1d3c4e-0000-4000-8000-000000000000' },
            ],
          },
        ),
      },
      { request: `GET ${configMaps}/dangling`, until: 404 },
    ],
  },
  {
    name: 'deletion: a dependent with one of two owners left stays',
    area: 'deletion',
    steps: [
      { request: `POST ${configMaps}`, body: configMap('first') },
      { request: `POST ${configMaps}`, body: configMap('second') },
      {
        request: `POST ${configMaps}`,
        body: configMap(
          'shared-child',
          {},
          {
            ownerReferences: [
              { apiVersion: 'v1', kind: 'ConfigMap', name: 'first', uid: '{{0.metadata.uid}}' },
              { apiVersion: 'v1', kind: 'ConfigMap', name: 'second', uid: '{{1.metadata.uid}}' },
            ],
          },
        ),
      },
      { request: `DELETE ${configMaps}/first` },
      {
        request: `GET ${configMaps}/shared-child`,
        // The collector removes the reference to the deleted owner, a moment later.
        until: ({ body }) =>
          (body as { metadata?: { ownerReferences?: unknown[] } }).metadata?.ownerReferences?.length === 1,
        pick: (body) => (body as { metadata: { ownerReferences: unknown } }).metadata.ownerReferences,
      },
    ],
  },
  {
    name: 'deletion: ownerReferences that are invalid',
    area: 'deletion',
    steps: [
      {
        request: `POST ${configMaps}`,
        body: configMap(
          'no-uid',
          {},
          { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: '' }] },
        ),
      },
      {
        request: `POST ${configMaps}`,
        body: configMap(
          'two-controllers',
          {},
          {
            ownerReferences: [
              { apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: 'a', controller: true },
              { apiVersion: 'v1', kind: 'ConfigMap', name: 'y', uid: 'b', controller: true },
            ],
          },
        ),
      },
    ],
  },
  {
    name: 'deletion: deletecollection with a label selector',
    area: 'deletion',
    steps: [
      { request: `POST ${configMaps}`, body: configMap('x1', {}, { labels: { sweep: 'yes' } }) },
      { request: `POST ${configMaps}`, body: configMap('x2', {}, { labels: { sweep: 'yes' } }) },
      { request: `POST ${configMaps}`, body: configMap('x3', {}, { labels: { sweep: 'no' } }) },
      { request: `DELETE ${configMaps}?labelSelector=sweep%3Dyes` },
      { request: `GET ${configMaps}` },
    ],
  },
  {
    name: 'deletion: deletecollection of custom resources',
    area: 'deletion',
    steps: [
      { request: `POST ${clusters}`, body: cluster('y1') },
      { request: `POST ${clusters}`, body: cluster('y2', { region: 'eu-west-1' }, { finalizers: [FINALIZER] }) },
      { request: `DELETE ${clusters}` },
      { request: `GET ${clusters}` },
    ],
  },
  {
    name: 'deletion: an invalid propagationPolicy',
    area: 'deletion',
    steps: [
      { request: `POST ${configMaps}`, body: configMap('policy') },
      { request: `DELETE ${configMaps}/policy?propagationPolicy=Sometimes` },
      { request: `DELETE ${configMaps}/policy`, body: { propagationPolicy: 'Orphan', orphanDependents: false } },
    ],
  },
  {
    name: 'deletion: gracePeriodSeconds=0 and a DeleteOptions body',
    area: 'deletion',
    steps: [
      { request: `POST ${configMaps}`, body: configMap('grace') },
      {
        request: `DELETE ${configMaps}/grace?gracePeriodSeconds=0`,
        body: { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0 },
      },
    ],
  },
  {
    name: 'deletion: a custom resource with a finalizer and orphan propagation',
    area: 'deletion',
    steps: [
      { request: `POST ${clusters}`, body: cluster('orphaned', { region: 'eu-west-1' }, { finalizers: [FINALIZER] }) },
      { request: `DELETE ${clusters}/orphaned?propagationPolicy=Orphan` },
      {
        // The collector orphans the (no) dependents and removes its orphan finalizer, a moment later.
        request: `GET ${clusters}/orphaned`,
        until: ({ body }) =>
          !(body as { metadata?: { finalizers?: string[] } }).metadata?.finalizers?.includes('orphan'),
      },
      {
        request: `PATCH ${clusters}/orphaned`,
        type: 'json-patch',
        body: [{ op: 'remove', path: '/metadata/finalizers/0' }],
      },
      { request: `GET ${clusters}/orphaned`, until: 404 },
    ],
  },
];
