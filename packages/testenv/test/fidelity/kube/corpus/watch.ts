import type { Sequence } from '../sequence.js';
import { cluster, configMap, PATHS } from './objects.js';

const { clusters, configMaps } = PATHS;

export const watch: Sequence[] = [
  {
    name: 'watch: from a list resourceVersion, ADDED, MODIFIED and DELETED',
    area: 'watch',
    steps: [
      { request: `GET ${configMaps}` },
      { request: `POST ${configMaps}`, body: configMap('w') },
      { request: `PATCH ${configMaps}/w`, type: 'merge', body: { data: { mode: 'slow' } } },
      { request: `DELETE ${configMaps}/w` },
      {
        request: `GET ${configMaps}?watch=true&resourceVersion={{0.metadata.resourceVersion}}&timeoutSeconds=2`,
        watch: 3,
      },
    ],
  },
  {
    name: 'watch: custom resources from a resourceVersion',
    area: 'watch',
    steps: [
      { request: `GET ${clusters}` },
      { request: `POST ${clusters}`, body: cluster('w') },
      { request: `PATCH ${clusters}/w/status`, type: 'merge', body: { status: { accountID: '123456789012' } } },
      { request: `DELETE ${clusters}/w` },
      { request: `GET ${clusters}?watch=1&resourceVersion={{0.metadata.resourceVersion}}&timeoutSeconds=2`, watch: 3 },
    ],
  },
  {
    name: 'watch: without a resourceVersion, the current objects arrive as ADDED',
    area: 'watch',
    steps: [
      { request: `POST ${configMaps}`, body: configMap('a') },
      { request: `POST ${configMaps}`, body: configMap('b') },
      { request: `GET ${configMaps}?watch=true&timeoutSeconds=1`, watch: 2 },
      { request: `GET ${configMaps}?watch=true&resourceVersion=0&timeoutSeconds=1`, watch: 2 },
    ],
  },
  {
    name: 'watch: a label selector turns changes into ADDED and DELETED',
    area: 'watch',
    steps: [
      { request: `POST ${configMaps}`, body: configMap('sel') },
      { request: `PATCH ${configMaps}/sel`, type: 'merge', body: { metadata: { labels: { watched: 'yes' } } } },
      { request: `PATCH ${configMaps}/sel`, type: 'merge', body: { data: { mode: 'slow' } } },
      { request: `PATCH ${configMaps}/sel`, type: 'merge', body: { metadata: { labels: { watched: 'no' } } } },
      {
        request: `GET ${configMaps}?watch=true&labelSelector=watched%3Dyes&resourceVersion={{0.metadata.resourceVersion}}&timeoutSeconds=2`,
        watch: 3,
      },
    ],
  },
  {
    name: 'watch: one object by field selector',
    area: 'watch',
    steps: [
      { request: `GET ${configMaps}` },
      { request: `POST ${configMaps}`, body: configMap('one') },
      { request: `POST ${configMaps}`, body: configMap('other') },
      { request: `PATCH ${configMaps}/one`, type: 'merge', body: { data: { x: '1' } } },
      {
        request: `GET ${configMaps}?watch=true&fieldSelector=metadata.name%3Done&resourceVersion={{0.metadata.resourceVersion}}&timeoutSeconds=2`,
        watch: 2,
      },
    ],
  },
  {
    name: 'watch: the legacy /watch/ path',
    area: 'watch',
    steps: [
      { request: `GET ${configMaps}` },
      { request: `POST ${configMaps}`, body: configMap('legacy') },
      {
        request: `GET /api/v1/watch/namespaces/{ns}/configmaps?resourceVersion={{0.metadata.resourceVersion}}&timeoutSeconds=2`,
        watch: 1,
      },
      {
        request: `GET /api/v1/watch/namespaces/{ns}/configmaps/legacy?resourceVersion={{0.metadata.resourceVersion}}&timeoutSeconds=2`,
        watch: 1,
      },
    ],
  },
  {
    name: 'watch: bookmarks before the timeout',
    area: 'watch',
    steps: [
      { request: `GET ${configMaps}` },
      {
        request: `GET ${configMaps}?watch=true&allowWatchBookmarks=true&resourceVersion={{0.metadata.resourceVersion}}&timeoutSeconds=4`,
        watch: 1,
      },
    ],
  },
  {
    name: 'watch: a resourceVersion too old is 410 Expired',
    area: 'watch',
    steps: [{ request: `GET ${configMaps}?watch=true&resourceVersion=1&timeoutSeconds=2`, watch: 1 }],
  },
  {
    name: 'watch: a resourceVersion that is not a number',
    area: 'watch',
    steps: [{ request: `GET ${configMaps}?watch=true&resourceVersion=abc&timeoutSeconds=1`, watch: 1 }],
  },
  {
    name: 'watch: across namespaces with a label selector',
    area: 'watch',
    steps: [
      { request: `GET ${PATHS.allClusters}` },
      {
        request: `POST ${clusters}`,
        body: cluster('everywhere', { region: 'eu-west-1' }, { labels: { watch: '{ns}' } }),
      },
      {
        request: `GET ${PATHS.allClusters}?watch=true&labelSelector=watch%3D{ns}&resourceVersion={{0.metadata.resourceVersion}}&timeoutSeconds=2`,
        watch: 1,
      },
    ],
  },
  {
    name: 'watch: the initial events of a watch list end with a bookmark',
    area: 'watch',
    steps: [
      { request: `POST ${configMaps}`, body: configMap('initial') },
      {
        request: `GET ${configMaps}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=2`,
        watch: 2,
      },
    ],
  },
  {
    name: 'watch: sendInitialEvents without bookmarks is refused',
    area: 'watch',
    steps: [
      {
        request: `GET ${configMaps}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=1`,
        watch: 1,
      },
    ],
  },
  {
    name: 'watch: as Table events (kubectl get -w)',
    area: 'watch',
    steps: [
      { request: `GET ${clusters}` },
      { request: `POST ${clusters}`, body: cluster('tw') },
      {
        request: `GET ${clusters}?watch=true&resourceVersion={{0.metadata.resourceVersion}}&timeoutSeconds=2`,
        accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json',
        watch: 1,
      },
    ],
  },
];
