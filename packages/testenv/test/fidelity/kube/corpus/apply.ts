import type { Sequence } from '../sequence.js';
import { cluster, configMap, deployment, PATHS, tagPolicy } from './objects.js';

const { configMaps, clusters, deployments } = PATHS;
const apply = (path: string, manager: string, body: unknown, query = '') => ({
  request: `PATCH ${path}?fieldManager=${manager}${query}`,
  type: 'apply',
  body,
});

export const applies: Sequence[] = [
  {
    name: 'apply creates, then updates, a ConfigMap',
    area: 'apply',
    steps: [
      apply(`${configMaps}/applied`, 'alice', configMap('applied', { a: '1' })),
      apply(`${configMaps}/applied`, 'alice', configMap('applied', { a: '2', b: '3' })),
      { request: `GET ${configMaps}/applied` },
    ],
  },
  {
    name: 'apply creates a custom resource with defaults',
    area: 'apply',
    steps: [apply(`${clusters}/applied`, 'alice', cluster('applied')), { request: `GET ${clusters}/applied` }],
  },
  {
    name: 'apply: two managers of different fields share the object',
    area: 'apply',
    steps: [
      apply(`${configMaps}/shared`, 'alice', configMap('shared', { a: '1' })),
      apply(`${configMaps}/shared`, 'bob', configMap('shared', { b: '2' })),
      { request: `GET ${configMaps}/shared` },
    ],
  },
  {
    name: 'apply: a field of another manager with another value conflicts',
    area: 'apply',
    steps: [
      apply(`${configMaps}/contested`, 'alice', configMap('contested', { a: '1' })),
      apply(`${configMaps}/contested`, 'bob', configMap('contested', { a: '2' })),
      { request: `GET ${configMaps}/contested` },
    ],
  },
  {
    name: 'apply: two conflicts on a custom resource',
    area: 'apply',
    steps: [
      apply(
        `${clusters}/contested`,
        'alice',
        cluster('contested', { region: 'eu-west-1', additionalTags: { team: 'a' } }),
      ),
      apply(
        `${clusters}/contested`,
        'bob',
        cluster('contested', { region: 'us-east-1', additionalTags: { team: 'b' } }),
      ),
    ],
  },
  {
    name: 'apply: force takes the field over',
    area: 'apply',
    steps: [
      apply(`${configMaps}/forced`, 'alice', configMap('forced', { a: '1' })),
      apply(`${configMaps}/forced`, 'bob', configMap('forced', { a: '2' }), '&force=true'),
      apply(`${configMaps}/forced`, 'alice', configMap('forced', { a: '3' })),
    ],
  },
  {
    name: 'apply: the same value from another manager is shared, not a conflict',
    area: 'apply',
    steps: [
      apply(`${configMaps}/same`, 'alice', configMap('same', { a: '1' })),
      apply(`${configMaps}/same`, 'bob', configMap('same', { a: '1' })),
      { request: `GET ${configMaps}/same` },
    ],
  },
  {
    name: 'apply: the order of managedFields entries',
    area: 'apply',
    // Entries of one operation are ordered by the second of their time, then by manager: the managers
    // act in the order of their names, so that the order is the same whether two steps fall in one
    // second or in two (under load they do either, differently on each server).
    steps: [
      apply(`${configMaps}/ordered`, 'alice', configMap('ordered', { a: '1' })),
      apply(`${configMaps}/ordered`, 'bob', configMap('ordered', { b: '1' })),
      apply(`${configMaps}/ordered`, 'carol', configMap('ordered', { c: '1' })),
      { request: `PATCH ${configMaps}/ordered?fieldManager=adam`, type: 'merge', body: { data: { y: '1' } } },
      { request: `PATCH ${configMaps}/ordered?fieldManager=zed`, type: 'merge', body: { data: { z: '1' } } },
      apply(`${configMaps}/ordered`, 'carol', configMap('ordered', { c: '2' })),
    ],
  },
  {
    name: 'apply: a field the manager stops applying is removed',
    area: 'apply',
    steps: [
      apply(`${configMaps}/shrinking`, 'alice', configMap('shrinking', { a: '1', b: '2' })),
      apply(`${configMaps}/shrinking`, 'alice', configMap('shrinking', { a: '1' })),
    ],
  },
  {
    name: 'apply: a dropped field that another manager also owns stays',
    area: 'apply',
    steps: [
      apply(`${configMaps}/co-owned`, 'alice', configMap('co-owned', { a: '1', b: '2' })),
      apply(`${configMaps}/co-owned`, 'bob', configMap('co-owned', { b: '2' })),
      apply(`${configMaps}/co-owned`, 'alice', configMap('co-owned', { a: '1' })),
    ],
  },
  {
    name: 'apply: a field set by an update then applied by another manager conflicts',
    area: 'apply',
    steps: [
      { request: `POST ${configMaps}?fieldManager=creator`, body: configMap('updated', { a: '1' }) },
      apply(`${configMaps}/updated`, 'alice', configMap('updated', { a: '2' })),
      apply(`${configMaps}/updated`, 'alice', configMap('updated', { b: '2' })),
    ],
  },
  {
    name: 'apply: without fieldManager',
    area: 'apply',
    steps: [{ request: `PATCH ${configMaps}/anonymous`, type: 'apply', body: configMap('anonymous') }],
  },
  {
    name: 'apply: without apiVersion or kind',
    area: 'apply',
    steps: [
      apply(`${configMaps}/bare`, 'alice', { metadata: { name: 'bare' }, data: { a: '1' } }),
      apply(`${configMaps}/bare`, 'alice', { apiVersion: 'v1', metadata: { name: 'bare' } }),
    ],
  },
  {
    name: 'apply: a name other than the path',
    area: 'apply',
    steps: [apply(`${configMaps}/one`, 'alice', configMap('two'))],
  },
  {
    name: 'apply: a YAML body',
    area: 'apply',
    steps: [
      apply(
        `${clusters}/yaml`,
        'alice',
        `apiVersion: infrastructure.keymaster.dev/v1beta1\nkind: AWSCluster\nmetadata:\n  name: yaml\nspec:\n  region: eu-west-3\n  additionalTags:\n    env: prod\n`,
      ),
      { request: `GET ${clusters}/yaml` },
    ],
  },
  {
    name: 'apply: an invalid custom resource is refused',
    area: 'apply',
    steps: [
      apply(`${clusters}/invalid`, 'alice', cluster('invalid', { region: 'nowhere' })),
      { request: `GET ${clusters}/invalid` },
    ],
  },
  {
    name: 'apply: map-list items (resourceTags by key) are owned one by one',
    area: 'apply',
    steps: [
      apply(
        `${PATHS.tagPolicies}/default`,
        'alice',
        tagPolicy('default', { resourceTags: [{ key: 'a', value: '1' }] }),
      ),
      apply(`${PATHS.tagPolicies}/default`, 'bob', tagPolicy('default', { resourceTags: [{ key: 'b', value: '2' }] })),
      apply(`${PATHS.tagPolicies}/default`, 'alice', tagPolicy('default', { resourceTags: [] })),
      { request: `GET ${PATHS.tagPolicies}/default` },
    ],
    cleanup: [`${PATHS.tagPolicies}/default`],
  },
  {
    name: 'apply: set-list items (extraRegions) are owned one by one',
    area: 'apply',
    steps: [
      apply(
        `${clusters}/sets`,
        'alice',
        cluster('sets', { region: 'eu-west-1', tagging: { extraRegions: ['us-east-1'] } }),
      ),
      apply(
        `${clusters}/sets`,
        'bob',
        cluster('sets', { region: 'eu-west-1', tagging: { extraRegions: ['us-west-2'] } }),
      ),
      { request: `GET ${clusters}/sets` },
    ],
  },
  {
    name: 'apply: a Deployment merges containers by name',
    area: 'apply',
    steps: [
      apply(`${deployments}/applied`, 'alice', deployment('applied')),
      apply(`${deployments}/applied`, 'alice', deployment('applied', { replicas: 2 })),
      { request: `GET ${deployments}/applied` },
    ],
  },
  {
    name: 'apply with dryRun creates nothing',
    area: 'apply',
    steps: [apply(`${configMaps}/dry`, 'alice', configMap('dry'), '&dryRun=All'), { request: `GET ${configMaps}/dry` }],
  },
  {
    name: 'apply: labels and annotations are owned per key',
    area: 'apply',
    steps: [
      apply(`${configMaps}/meta`, 'alice', configMap('meta', {}, { labels: { a: '1' }, annotations: { note: 'x' } })),
      apply(`${configMaps}/meta`, 'bob', configMap('meta', {}, { labels: { b: '2' } })),
      apply(`${configMaps}/meta`, 'alice', configMap('meta', {}, { labels: { a: '1' } })),
      { request: `GET ${configMaps}/meta` },
    ],
  },
  {
    name: 'apply: an update after apply takes the fields it changes',
    area: 'apply',
    steps: [
      apply(`${configMaps}/handover`, 'alice', configMap('handover', { a: '1' })),
      { request: `PATCH ${configMaps}/handover?fieldManager=editor`, type: 'merge', body: { data: { a: '2' } } },
      apply(`${configMaps}/handover`, 'alice', configMap('handover', { a: '3' })),
    ],
  },
];
