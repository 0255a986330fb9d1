import type { Sequence } from '../sequence.js';
import { cluster, configMap, PATHS } from './objects.js';

const { clusters, configMaps } = PATHS;

/** A namespace's status conditions (the namespace controller's progress). */
const conditions = (body: unknown): { type: string; status: string }[] =>
  (body as { status?: { conditions?: { type: string; status: string }[] } }).status?.conditions ?? [];

/**
 * An object with its managedFields entries in one order. Entries of one operation are ordered by the
 * second of their time, then manager and subresource: writers of /status and /finalize that fall in
 * one second or in two (as the corpus's pace decides) come in either order.
 */
const anyManagerOrder = (body: unknown): unknown => {
  const { metadata } = body as { metadata: { managedFields?: unknown[] } };
  const { managedFields, ...rest } = metadata;
  const managers = (managedFields ?? []).map((entry) => JSON.stringify(entry)).sort();
  return { ...(body as object), metadata: { ...rest, managers } };
};

/** Whether an object has been deleted (by the namespace controller) and waits for its finalizers. */
const deleting = ({ body }: { body: unknown }): boolean =>
  (body as { metadata?: { deletionTimestamp?: string } }).metadata?.deletionTimestamp !== undefined;

export const namespace: Sequence[] = [
  {
    name: 'namespace: deleting it marks it Terminating and empties it',
    area: 'namespace',
    steps: [
      { request: `POST ${configMaps}`, body: configMap('content') },
      { request: `POST ${clusters}`, body: cluster('content') },
      { request: 'DELETE /api/v1/namespaces/{ns}' },
      { request: 'GET /api/v1/namespaces/{ns}', until: 404 },
      { request: `GET ${configMaps}/content` },
      { request: `GET ${clusters}/content` },
    ],
  },
  {
    name: 'namespace: no new objects while Terminating',
    area: 'namespace',
    steps: [
      {
        request: `POST ${configMaps}`,
        body: configMap('blocker', {}, { finalizers: ['fidelity.keymaster.dev/hold'] }),
      },
      { request: 'DELETE /api/v1/namespaces/{ns}' },
      // kube-apiserver's NamespaceLifecycle admission reads namespaces from an informer: wait until it knows.
      { request: `POST ${configMaps}?dryRun=All`, body: configMap('late'), until: 403 },
      { request: `POST ${configMaps}`, body: configMap('late') },
      { request: `POST ${clusters}`, body: cluster('late') },
      { request: `GET ${configMaps}/blocker`, until: deleting },
      { request: `PATCH ${configMaps}/blocker`, type: 'merge', body: { metadata: { finalizers: null } } },
      { request: 'GET /api/v1/namespaces/{ns}', until: 404 },
    ],
  },
  {
    name: 'namespace: conditions while content with finalizers remains',
    area: 'namespace',
    steps: [
      {
        request: `POST ${clusters}`,
        body: cluster('blocker', { region: 'eu-west-1' }, { finalizers: ['fidelity.keymaster.dev/hold'] }),
      },
      { request: 'DELETE /api/v1/namespaces/{ns}' },
      {
        request: 'GET /api/v1/namespaces/{ns}',
        until: ({ body }) =>
          conditions(body).some(({ type, status }) => type === 'NamespaceFinalizersRemaining' && status === 'True'),
        pick: (body) => (body as { status: unknown }).status,
      },
      { request: `GET ${clusters}/blocker`, pick: (body) => (body as { metadata: unknown }).metadata },
      { request: `PATCH ${clusters}/blocker`, type: 'merge', body: { metadata: { finalizers: null } } },
      { request: 'GET /api/v1/namespaces/{ns}', until: 404 },
    ],
  },
  {
    name: 'namespace: the name label is set and kept',
    area: 'namespace',
    steps: [
      { request: 'POST /api/v1/namespaces', body: { metadata: { name: '{ns}-labelled', labels: { team: 'a' } } } },
      {
        request: 'PATCH /api/v1/namespaces/{ns}-labelled',
        type: 'merge',
        body: { metadata: { labels: { 'kubernetes.io/metadata.name': 'other' } } },
      },
      {
        request: 'PATCH /api/v1/namespaces/{ns}-labelled',
        type: 'json-patch',
        body: [{ op: 'remove', path: '/metadata/labels' }],
      },
      { request: 'DELETE /api/v1/namespaces/{ns}-labelled' },
    ],
  },
  {
    name: 'namespace: the built-in namespaces cannot be deleted',
    area: 'namespace',
    steps: [
      { request: 'DELETE /api/v1/namespaces/default' },
      { request: 'DELETE /api/v1/namespaces/kube-system' },
      { request: 'DELETE /api/v1/namespaces/kube-public' },
      { request: 'GET /api/v1/namespaces/default', pick: (body) => (body as { status: unknown }).status },
    ],
  },
  {
    name: 'namespace: /finalize removes the kubernetes finalizer',
    area: 'namespace',
    steps: [
      { request: 'POST /api/v1/namespaces', body: { metadata: { name: '{ns}-finalize' } } },
      {
        request: 'PUT /api/v1/namespaces/{ns}-finalize/finalize',
        body: { metadata: { name: '{ns}-finalize' }, spec: { finalizers: [] } },
      },
      { request: 'DELETE /api/v1/namespaces/{ns}-finalize' },
      { request: 'GET /api/v1/namespaces/{ns}-finalize', until: 404 },
    ],
  },
  {
    name: 'namespace: a namespace with its own metadata finalizer',
    area: 'namespace',
    steps: [
      {
        request: 'POST /api/v1/namespaces',
        body: { metadata: { name: '{ns}-held', finalizers: ['fidelity.keymaster.dev/hold'] } },
      },
      { request: 'DELETE /api/v1/namespaces/{ns}-held' },
      {
        request: 'GET /api/v1/namespaces/{ns}-held',
        until: ({ body }) => (body as { spec?: { finalizers?: string[] } }).spec?.finalizers === undefined,
        pick: (body) => [
          (body as { metadata: unknown }).metadata,
          (body as { spec: unknown }).spec,
          (body as { status: unknown }).status,
        ],
      },
      {
        request: 'PATCH /api/v1/namespaces/{ns}-held',
        type: 'merge',
        body: { metadata: { finalizers: null } },
        // managedFields of one operation are ordered by their time's second: this PATCH and the
        // controller's last status write fall in one second or in two, as the corpus's pace decides.
        pick: (body) => (anyManagerOrder(body) as { metadata: unknown }).metadata,
      },
      { request: 'GET /api/v1/namespaces/{ns}-held', until: 404 },
    ],
  },
  {
    name: 'namespace: deleting a namespace twice',
    area: 'namespace',
    steps: [
      { request: `POST ${configMaps}`, body: configMap('slow', {}, { finalizers: ['fidelity.keymaster.dev/hold'] }) },
      { request: 'DELETE /api/v1/namespaces/{ns}' },
      {
        request: 'DELETE /api/v1/namespaces/{ns}',
        // Whether the namespace controller has written its conditions by now is a race (the
        // emulator's runs at once, kube-controller-manager's after its informers catch up).
        pick: (body) => {
          const { metadata, spec, status } = body as { metadata: object; spec: unknown; status: { phase: unknown } };
          return { metadata: { ...metadata, managedFields: undefined }, spec, phase: status.phase };
        },
      },
      { request: `GET ${configMaps}/slow`, until: deleting },
      { request: `PATCH ${configMaps}/slow`, type: 'merge', body: { metadata: { finalizers: null } } },
      { request: 'GET /api/v1/namespaces/{ns}', until: 404 },
    ],
  },
  {
    name: 'namespace: an invalid spec.finalizers entry',
    area: 'namespace',
    steps: [
      {
        request: 'POST /api/v1/namespaces',
        body: { metadata: { name: '{ns}-badfin' }, spec: { finalizers: ['not valid!'] } },
      },
    ],
  },
  {
    name: 'namespace: /status and /finalize keep metadata changes, as the namespace strategies do',
    area: 'namespace',
    steps: [
      { request: 'POST /api/v1/namespaces', body: { metadata: { name: '{ns}-meta', labels: { tenancy: 'a' } } } },
      {
        request: 'PUT /api/v1/namespaces/{ns}-meta/status',
        body: {
          metadata: { name: '{ns}-meta', labels: { tenancy: 'b', added: 'x' }, annotations: { note: 'y' } },
          spec: { finalizers: [] },
          status: { phase: 'Active' },
        },
      },
      {
        request: 'PATCH /api/v1/namespaces/{ns}-meta/status',
        type: 'merge',
        body: { metadata: { labels: { tenancy: 'c' } } },
      },
      {
        request: 'PATCH /api/v1/namespaces/{ns}-meta/status?fieldManager=fidelity-apply&force=true',
        type: 'apply',
        body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: '{ns}-meta', labels: { tenancy: 'd' } } },
      },
      {
        request: 'PUT /api/v1/namespaces/{ns}-meta/finalize',
        body: {
          metadata: { name: '{ns}-meta', labels: { tenancy: 'e', 'kubernetes.io/metadata.name': 'other' } },
          spec: { finalizers: ['kubernetes', 'fidelity.keymaster.dev/hold'] },
          status: { phase: 'Terminating' },
        },
        pick: anyManagerOrder,
      },
      { request: 'GET /api/v1/namespaces/{ns}-meta/finalize' },
      {
        request: 'PATCH /api/v1/namespaces/{ns}-meta/finalize',
        type: 'merge',
        body: { metadata: { labels: { x: 'y' } } },
      },
      {
        request: 'PUT /api/v1/namespaces/{ns}-meta',
        body: {
          metadata: { name: '{ns}-meta', labels: { tenancy: 'f' } },
          spec: { finalizers: ['fidelity.keymaster.dev/other'] },
        },
        // kube-apiserver gives the writer the spec.finalizers it asked for before its strategy keeps
        // the stored ones (the emulator's field manager sees the object as stored).
        pick: (body) => {
          const { managedFields: _, ...metadata } = (body as { metadata: { managedFields?: unknown } }).metadata;
          return { ...(body as object), metadata };
        },
      },
      {
        request: 'PUT /api/v1/namespaces/{ns}-meta/finalize',
        body: { metadata: { name: '{ns}-meta' }, spec: { finalizers: [] } },
        pick: anyManagerOrder,
      },
    ],
    cleanup: ['/api/v1/namespaces/{ns}-meta'],
  },
];
