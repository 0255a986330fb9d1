import type { Sequence, Step } from '../sequence.js';
import { cluster, configMap, PATHS } from './objects.js';

const { clusters, configMaps } = PATHS;

/** Five ConfigMaps (a..e) labelled by tier, then the steps. */
const fiveConfigMaps: Step[] = ['a', 'b', 'c', 'd', 'e'].map((name, index) => ({
  request: `POST ${configMaps}`,
  body: configMap(name, { n: String(index) }, { labels: { tier: index % 2 === 0 ? 'even' : 'odd', n: String(index) } }),
}));

export const list: Sequence[] = [
  {
    name: 'list: pages of two with continue tokens and remainingItemCount',
    area: 'list',
    steps: [
      ...fiveConfigMaps,
      { request: `GET ${configMaps}?limit=2` },
      { request: `GET ${configMaps}?limit=2&continue={{5.metadata.continue}}` },
      { request: `GET ${configMaps}?limit=2&continue={{6.metadata.continue}}` },
    ],
  },
  {
    name: 'list: limit with a label selector',
    area: 'list',
    steps: [
      ...fiveConfigMaps,
      { request: `GET ${configMaps}?limit=2&labelSelector=tier%3Deven` },
      { request: `GET ${configMaps}?limit=2&labelSelector=tier%3Deven&continue={{5.metadata.continue}}` },
    ],
  },
  {
    name: 'list: a continue token that is not one',
    area: 'list',
    steps: [
      { request: `GET ${configMaps}?limit=1&continue=bm90LWEtdG9rZW4` },
      { request: `GET ${configMaps}?continue=%%%` },
    ],
  },
  {
    name: 'list: continue tokens that decode to something else',
    area: 'list',
    steps: [
      // Not base64url; padded; JSON of another version; without a resourceVersion; without a key;
      // a key that climbs out; a resourceVersion that is a string.
      { request: `GET ${configMaps}?limit=1&continue=a$b` },
      { request: `GET ${configMaps}?limit=1&continue=eyJ2IjoieCJ9=` },
      { request: `GET ${configMaps}?limit=1&continue=eyJ2Ijoib3RoZXIvdjkiLCJydiI6NSwic3RhcnQiOiJhIn0` },
      { request: `GET ${configMaps}?limit=1&continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MCwic3RhcnQiOiJhIn0` },
      { request: `GET ${configMaps}?limit=1&continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6NSwic3RhcnQiOiIifQ` },
      { request: `GET ${configMaps}?limit=1&continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6NSwic3RhcnQiOiIuLi8uLi94In0` },
      { request: `GET ${configMaps}?limit=1&continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6IjUiLCJzdGFydCI6ImEifQ` },
    ],
  },
  {
    name: 'list: a continue token of another list',
    area: 'list',
    steps: [
      ...fiveConfigMaps.slice(0, 3),
      { request: `GET ${configMaps}?limit=1` },
      { request: `GET /api/v1/namespaces/default/configmaps?limit=1&continue={{3.metadata.continue}}` },
    ],
  },
  {
    name: 'list: label selectors of every operator',
    area: 'list',
    steps: [
      ...fiveConfigMaps,
      { request: `GET ${configMaps}?labelSelector=tier%3D%3Dodd` },
      { request: `GET ${configMaps}?labelSelector=tier!%3Dodd` },
      { request: `GET ${configMaps}?labelSelector=n%20in%20(1,3,4)` },
      { request: `GET ${configMaps}?labelSelector=n%20notin%20(1,3,4)` },
      { request: `GET ${configMaps}?labelSelector=tier,n` },
      { request: `GET ${configMaps}?labelSelector=!missing` },
      { request: `GET ${configMaps}?labelSelector=n%3E2` },
      { request: `GET ${configMaps}?labelSelector=tier%3Deven,n%3C3` },
    ],
  },
  {
    name: 'list: an invalid label selector',
    area: 'list',
    steps: [
      { request: `GET ${configMaps}?labelSelector=a%3D%3D%3Db` },
      { request: `GET ${configMaps}?labelSelector=n%3Eabc` },
      { request: `GET ${configMaps}?labelSelector=in%20(` },
    ],
  },
  {
    name: 'list: field selectors on name and namespace',
    area: 'list',
    steps: [
      ...fiveConfigMaps,
      { request: `GET ${configMaps}?fieldSelector=metadata.name%3Dc` },
      { request: `GET ${configMaps}?fieldSelector=metadata.name!%3Dc` },
      { request: `GET /api/v1/configmaps?fieldSelector=metadata.namespace%3D{ns},metadata.name%3Dd` },
    ],
  },
  {
    name: 'list: an unsupported field selector',
    area: 'list',
    steps: [
      { request: `GET ${configMaps}?fieldSelector=data.n%3D1` },
      { request: `GET ${clusters}?fieldSelector=spec.region%3Deu-west-1` },
      { request: `GET ${configMaps}?fieldSelector=metadata.name` },
    ],
  },
  {
    name: 'list: Secrets by type',
    area: 'list',
    steps: [
      {
        request: `POST ${PATHS.secrets}`,
        body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'opaque' }, stringData: { a: 'b' } },
      },
      {
        request: `POST ${PATHS.secrets}`,
        body: {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 'basic' },
          type: 'kubernetes.io/basic-auth',
          stringData: { username: 'u', password: 'p' },
        },
      },
      { request: `GET ${PATHS.secrets}?fieldSelector=type%3Dkubernetes.io%2Fbasic-auth` },
    ],
  },
  {
    name: 'list: custom resources in a namespace and across namespaces',
    area: 'list',
    steps: [
      { request: `POST ${clusters}`, body: cluster('one', { region: 'eu-west-1' }, { labels: { list: '{ns}' } }) },
      { request: `POST ${clusters}`, body: cluster('two', { region: 'eu-west-2' }, { labels: { list: '{ns}' } }) },
      { request: `GET ${clusters}` },
      { request: `GET ${PATHS.allClusters}?labelSelector=list%3D{ns}` },
      { request: `GET ${PATHS.allClusters}?labelSelector=list%3D{ns}&limit=1` },
    ],
  },
  {
    name: 'list: an empty list',
    area: 'list',
    steps: [{ request: `GET ${clusters}` }, { request: `GET ${configMaps}?labelSelector=nothing%3Dhere` }],
  },
  {
    name: 'list: limit 0 and a negative limit',
    area: 'list',
    steps: [
      ...fiveConfigMaps.slice(0, 2),
      { request: `GET ${configMaps}?limit=0` },
      { request: `GET ${configMaps}?limit=-1` },
    ],
  },
  {
    name: 'list: as PartialObjectMetadataList',
    area: 'list',
    steps: [
      ...fiveConfigMaps.slice(0, 2),
      { request: `GET ${configMaps}`, accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io' },
      { request: `GET ${configMaps}/a`, accept: 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io' },
    ],
  },
  {
    name: 'list: as a Table (kubectl get)',
    area: 'list',
    steps: [
      { request: `POST ${clusters}`, body: cluster('table') },
      { request: `GET ${clusters}`, accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' },
      { request: `GET ${configMaps}`, accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' },
      {
        request: `GET ${clusters}/table?includeObject=Object`,
        accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json',
      },
    ],
  },
  {
    name: 'list: an unacceptable media type',
    area: 'list',
    steps: [
      { request: `GET ${configMaps}`, accept: 'application/xml' },
      { request: `GET ${configMaps}`, accept: 'application/json;as=Nothing;v=v1;g=meta.k8s.io' },
    ],
  },
  {
    name: 'list: resourceVersion=0 with a limit',
    area: 'list',
    steps: [...fiveConfigMaps.slice(0, 3), { request: `GET ${configMaps}?resourceVersion=0&limit=1` }],
  },
  {
    name: 'list: an exact resourceVersion of the past',
    area: 'list',
    steps: [
      { request: `POST ${configMaps}`, body: configMap('then') },
      { request: `GET ${configMaps}` },
      { request: `POST ${configMaps}`, body: configMap('later') },
      { request: `GET ${configMaps}?resourceVersion={{1.metadata.resourceVersion}}&resourceVersionMatch=Exact` },
    ],
  },
  {
    name: 'list: resourceVersionMatch without a resourceVersion',
    area: 'list',
    steps: [
      { request: `GET ${configMaps}?resourceVersionMatch=NotOlderThan` },
      { request: `GET ${configMaps}?resourceVersionMatch=Sometimes&resourceVersion=1` },
    ],
  },
];
