import type { Sequence } from '../sequence.js';
import { cluster, configMap, deployment, PATHS } from './objects.js';

const { clusters, configMaps, deployments } = PATHS;
const ready = {
  accountID: '123456789012',
  observedGeneration: 1,
  conditions: [
    { type: 'Ready', status: 'True', reason: 'Reconciled', message: 'ok', lastTransitionTime: '2025-01-01T00:00:00Z' },
  ],
};

export const status: Sequence[] = [
  {
    name: 'status: a write to /status changes only status',
    area: 'status',
    steps: [
      { request: `POST ${clusters}`, body: cluster('s1') },
      {
        request: `PUT ${clusters}/s1/status`,
        body: {
          ...cluster('s1', { region: 'us-east-1' }),
          metadata: { name: 's1', resourceVersion: '{{0.metadata.resourceVersion}}' },
          status: ready,
        },
      },
      { request: `GET ${clusters}/s1` },
      { request: `GET ${clusters}/s1/status` },
    ],
  },
  {
    name: 'status: a write to the object keeps the old status',
    area: 'status',
    steps: [
      { request: `POST ${clusters}`, body: { ...cluster('s2'), status: ready } },
      { request: `PATCH ${clusters}/s2/status`, type: 'merge', body: { status: ready } },
      {
        request: `PATCH ${clusters}/s2`,
        type: 'merge',
        body: { spec: { region: 'us-east-2' }, status: { accountID: '999999999999' } },
      },
    ],
  },
  {
    name: 'status: generation moves with spec only',
    area: 'status',
    steps: [
      { request: `POST ${clusters}`, body: cluster('s3') },
      { request: `PATCH ${clusters}/s3/status`, type: 'merge', body: { status: { accountID: '123456789012' } } },
      { request: `PATCH ${clusters}/s3`, type: 'merge', body: { metadata: { labels: { a: 'b' } } } },
      { request: `PATCH ${clusters}/s3`, type: 'merge', body: { spec: { region: 'ap-east-1' } } },
    ],
  },
  {
    name: 'status: JSON patch of conditions',
    area: 'status',
    steps: [
      { request: `POST ${clusters}`, body: cluster('s4') },
      {
        request: `PATCH ${clusters}/s4/status`,
        type: 'json-patch',
        body: [{ op: 'add', path: '/status', value: ready }],
      },
      {
        request: `PATCH ${clusters}/s4/status`,
        type: 'json-patch',
        body: [{ op: 'replace', path: '/status/conditions/0/status', value: 'False' }],
      },
    ],
  },
  {
    name: 'status: an invalid status is refused',
    area: 'status',
    steps: [
      { request: `POST ${clusters}`, body: cluster('s5') },
      {
        request: `PATCH ${clusters}/s5/status`,
        type: 'merge',
        body: { status: { accountID: 'abc', conditions: [{ type: 'Ready' }] } },
      },
    ],
  },
  {
    name: 'status: apply to /status',
    area: 'status',
    steps: [
      { request: `POST ${clusters}`, body: cluster('s6') },
      {
        request: `PATCH ${clusters}/s6/status?fieldManager=controller&force=true`,
        type: 'apply',
        body: {
          apiVersion: 'infrastructure.keymaster.dev/v1beta1',
          kind: 'AWSCluster',
          metadata: { name: 's6' },
          status: ready,
        },
      },
      { request: `GET ${clusters}/s6` },
    ],
  },
  {
    name: 'status: a stale resourceVersion on /status',
    area: 'status',
    steps: [
      { request: `POST ${clusters}`, body: cluster('s7') },
      { request: `PATCH ${clusters}/s7`, type: 'merge', body: { metadata: { labels: { bump: '1' } } } },
      {
        request: `PUT ${clusters}/s7/status`,
        body: {
          ...cluster('s7'),
          metadata: { name: 's7', resourceVersion: '{{0.metadata.resourceVersion}}' },
          status: ready,
        },
      },
    ],
  },
  {
    name: 'status: /status of a missing object and of a kind without it',
    area: 'status',
    steps: [
      { request: `GET ${clusters}/missing/status` },
      { request: `PATCH ${clusters}/missing/status`, type: 'merge', body: { status: ready } },
      { request: `POST ${configMaps}`, body: configMap('no-status') },
      { request: `GET ${configMaps}/no-status/status` },
      { request: `POST ${clusters}/x/status`, body: cluster('x') },
    ],
  },
  {
    name: 'status: Deployment /status',
    area: 'status',
    steps: [
      { request: `POST ${deployments}`, body: deployment('st') },
      {
        request: `PATCH ${deployments}/st/status`,
        type: 'merge',
        body: { status: { replicas: 1, observedGeneration: 1 } },
      },
      { request: `PATCH ${deployments}/st`, type: 'merge', body: { spec: { replicas: 4 } } },
    ],
  },
  {
    name: 'status: Namespace /status',
    area: 'status',
    steps: [
      { request: 'GET /api/v1/namespaces/{ns}/status' },
      { request: 'PATCH /api/v1/namespaces/{ns}/status', type: 'merge', body: { status: { phase: 'Terminating' } } },
      { request: 'GET /api/v1/namespaces/{ns}' },
    ],
  },
  {
    name: 'status: the status of an identity',
    area: 'status',
    steps: [
      {
        request: `POST ${PATHS.staticIdentities}`,
        body: {
          apiVersion: 'infrastructure.keymaster.dev/v1beta1',
          kind: 'AWSClusterStaticIdentity',
          metadata: { name: 'status-static' },
          spec: { secretRef: 'keys' },
        },
      },
      {
        request: `PATCH ${PATHS.staticIdentities}/status-static/status`,
        type: 'merge',
        body: { status: { conditions: [] } },
      },
    ],
    cleanup: [`${PATHS.staticIdentities}/status-static`],
  },
];
