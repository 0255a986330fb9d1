import type { Sequence } from '../sequence.js';
import { cluster, configMap, PATHS } from './objects.js';

const { clusters, configMaps } = PATHS;

export const conflict: Sequence[] = [
  {
    name: 'conflict: replace with a stale resourceVersion',
    area: 'conflict',
    steps: [
      { request: `POST ${configMaps}`, body: configMap('c1') },
      {
        request: `PUT ${configMaps}/c1`,
        body: {
          ...configMap('c1', { a: '1' }),
          metadata: { name: 'c1', resourceVersion: '{{0.metadata.resourceVersion}}' },
        },
      },
      {
        request: `PUT ${configMaps}/c1`,
        body: {
          ...configMap('c1', { a: '2' }),
          metadata: { name: 'c1', resourceVersion: '{{0.metadata.resourceVersion}}' },
        },
      },
    ],
  },
  {
    name: 'conflict: replace of a custom resource with a stale resourceVersion',
    area: 'conflict',
    steps: [
      { request: `POST ${clusters}`, body: cluster('c2') },
      {
        request: `PUT ${clusters}/c2`,
        body: {
          ...cluster('c2', { region: 'us-east-1' }),
          metadata: { name: 'c2', resourceVersion: '{{0.metadata.resourceVersion}}' },
        },
      },
      {
        request: `PUT ${clusters}/c2`,
        body: {
          ...cluster('c2', { region: 'us-east-2' }),
          metadata: { name: 'c2', resourceVersion: '{{0.metadata.resourceVersion}}' },
        },
      },
    ],
  },
  {
    name: 'conflict: a resourceVersion that is not a number',
    area: 'conflict',
    steps: [
      { request: `POST ${configMaps}`, body: configMap('c3') },
      {
        request: `PUT ${configMaps}/c3`,
        body: { ...configMap('c3'), metadata: { name: 'c3', resourceVersion: 'abc' } },
      },
    ],
  },
  {
    name: 'conflict: a resourceVersion on create',
    area: 'conflict',
    steps: [
      { request: `POST ${configMaps}`, body: { ...configMap('c4'), metadata: { name: 'c4', resourceVersion: '5' } } },
    ],
  },
  {
    name: 'conflict: delete with preconditions',
    area: 'conflict',
    steps: [
      { request: `POST ${configMaps}`, body: configMap('c5') },
      {
        request: `DELETE ${configMaps}/c5`,
        body: { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { uid: 'not-the-uid' } },
      },
      {
        request: `DELETE ${configMaps}/c5`,
        body: { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { resourceVersion: '1' } },
      },
      {
        request: `DELETE ${configMaps}/c5`,
        body: {
          apiVersion: 'v1',
          kind: 'DeleteOptions',
          preconditions: { uid: '{{0.metadata.uid}}', resourceVersion: '{{0.metadata.resourceVersion}}' },
        },
      },
    ],
  },
  {
    name: 'conflict: delete of a custom resource with a stale resourceVersion precondition',
    area: 'conflict',
    steps: [
      { request: `POST ${clusters}`, body: cluster('c6') },
      { request: `PATCH ${clusters}/c6`, type: 'merge', body: { spec: { region: 'us-east-1' } } },
      {
        request: `DELETE ${clusters}/c6`,
        body: { preconditions: { resourceVersion: '{{0.metadata.resourceVersion}}' } },
      },
      { request: `GET ${clusters}/c6` },
    ],
  },
  {
    name: 'conflict: an update after the object was deleted and created again',
    area: 'conflict',
    steps: [
      { request: `POST ${configMaps}`, body: configMap('c7') },
      { request: `DELETE ${configMaps}/c7` },
      { request: `POST ${configMaps}`, body: configMap('c7') },
      {
        request: `PUT ${configMaps}/c7`,
        body: {
          ...configMap('c7', { a: '1' }),
          metadata: { name: 'c7', resourceVersion: '{{0.metadata.resourceVersion}}' },
        },
      },
    ],
  },
  {
    name: 'conflict: a replace that changes nothing keeps the resourceVersion',
    area: 'conflict',
    steps: [
      { request: `POST ${clusters}`, body: cluster('c8') },
      {
        request: `PUT ${clusters}/c8`,
        body: { ...cluster('c8'), metadata: { name: 'c8', resourceVersion: '{{0.metadata.resourceVersion}}' } },
      },
      {
        request: `PUT ${clusters}/c8`,
        body: { ...cluster('c8'), metadata: { name: 'c8', resourceVersion: '{{0.metadata.resourceVersion}}' } },
      },
    ],
  },
  {
    name: 'conflict: a replace that changes uid or creationTimestamp',
    area: 'conflict',
    steps: [
      { request: `POST ${configMaps}`, body: configMap('c9') },
      {
        request: `PUT ${configMaps}/c9`,
        body: { ...configMap('c9'), metadata: { name: 'c9', uid: '00000000-0000-0000-0000-000000000000' } },
      },
      {
        request: `PUT ${configMaps}/c9`,
        body: { ...configMap('c9', { a: 'b' }), metadata: { name: 'c9', creationTimestamp: '2020-01-01T00:00:00Z' } },
      },
      { request: `GET ${configMaps}/c9` },
    ],
  },
];
