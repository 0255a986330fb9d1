import type { Sequence, Step } from '../sequence.js';
import { cluster, configMap, deployment, PATHS } from './objects.js';

const { configMaps, clusters, deployments } = PATHS;

/** Creates `body` in `collection`, patches `name` with each patch in turn, and reads the result. */
function patches(name: string, collection: string, body: Record<string, unknown>, steps: Step[]): Sequence {
  const objectName = (body.metadata as { name: string }).name;
  return {
    name,
    area: 'patch',
    steps: [
      { request: `POST ${collection}`, body },
      ...steps.map((step) => ({ ...step, request: step.request.replace(' @', ` ${collection}/${objectName}`) })),
      { request: `GET ${collection}/${objectName}` },
    ],
  };
}

export const patch: Sequence[] = [
  patches(
    'merge patch: set, change and remove (null) keys of a ConfigMap',
    configMaps,
    configMap('m', { a: '1', b: '2' }),
    [
      {
        request: 'PATCH @',
        type: 'merge',
        body: { data: { a: '10', b: null, c: '3' }, metadata: { labels: { x: 'y' } } },
      },
    ],
  ),
  patches('merge patch: a custom resource, with defaults kept', clusters, cluster('m'), [
    { request: 'PATCH @', type: 'merge', body: { spec: { additionalTags: { team: 'a' }, tagging: { paused: true } } } },
    { request: 'PATCH @', type: 'merge', body: { spec: { tagging: null } } },
  ]),
  patches(
    'merge patch: replaces lists whole',
    clusters,
    cluster('lists', { region: 'eu-west-1', tagging: { extraRegions: ['us-east-1', 'us-west-2'] } }),
    [{ request: 'PATCH @', type: 'merge', body: { spec: { tagging: { extraRegions: ['eu-central-1'] } } } }],
  ),
  patches('merge patch: not an object', configMaps, configMap('bad-merge'), [
    { request: 'PATCH @', type: 'merge', body: '[1]' },
    { request: 'PATCH @', type: 'merge', body: '{not json' },
  ]),
  patches('patches that are not JSON, of each type', configMaps, configMap('bad-patches'), [
    { request: 'PATCH @', type: 'json-patch', body: '[{"op": "add"' },
    { request: 'PATCH @', type: 'json-patch', body: '{"op": "add"}' },
    { request: 'PATCH @', type: 'strategic', body: '{"data": tru}' },
    { request: 'PATCH @', type: 'strategic', body: '"text"' },
    { request: 'PATCH @', type: 'merge', body: '' },
    { request: 'PATCH @', type: 'merge', body: 'null' },
    { request: 'PATCH @', type: 'json-patch', body: '' },
    { request: 'PATCH @', type: 'json-patch', body: 'null' },
    { request: 'PATCH @', type: 'strategic', body: '' },
    { request: 'PATCH @', type: 'strategic', body: 'null' },
  ]),
  patches('merge patch: a stale resourceVersion in the patch', configMaps, configMap('stale'), [
    { request: 'PATCH @', type: 'merge', body: { metadata: { resourceVersion: '1' }, data: { a: 'b' } } },
  ]),
  patches('merge patch: the current resourceVersion in the patch', configMaps, configMap('current'), [
    {
      request: 'PATCH @',
      type: 'merge',
      body: { metadata: { resourceVersion: '{{0.metadata.resourceVersion}}' }, data: { a: 'b' } },
    },
  ]),
  patches('merge patch: changing the name', configMaps, configMap('renamed'), [
    { request: 'PATCH @', type: 'merge', body: { metadata: { name: 'other' } } },
  ]),
  patches('merge patch: nothing changes, same resourceVersion', configMaps, configMap('noop'), [
    { request: 'PATCH @', type: 'merge', body: { data: { mode: 'fast' } } },
  ]),
  {
    name: 'patch of a missing object is NotFound',
    area: 'patch',
    steps: [
      { request: `PATCH ${configMaps}/missing`, type: 'merge', body: { data: { a: '1' } } },
      {
        request: `PATCH ${clusters}/missing`,
        type: 'json-patch',
        body: [{ op: 'add', path: '/spec/region', value: 'eu-west-1' }],
      },
    ],
  },
  patches('JSON patch: add, replace, remove', configMaps, configMap('jp', { a: '1', b: '2' }), [
    {
      request: 'PATCH @',
      type: 'json-patch',
      body: [
        { op: 'add', path: '/data/c', value: '3' },
        { op: 'replace', path: '/data/a', value: '10' },
        { op: 'remove', path: '/data/b' },
        { op: 'add', path: '/metadata/labels', value: { 'app.kubernetes.io/name': 'x' } },
      ],
    },
  ]),
  patches('JSON patch: move, copy and a passing test', configMaps, configMap('jp2', { a: '1' }), [
    {
      request: 'PATCH @',
      type: 'json-patch',
      body: [
        { op: 'test', path: '/data/a', value: '1' },
        { op: 'copy', from: '/data/a', path: '/data/b' },
        { op: 'move', from: '/data/a', path: '/data/c' },
      ],
    },
  ]),
  patches('JSON patch: a failing test', configMaps, configMap('jp3', { a: '1' }), [
    { request: 'PATCH @', type: 'json-patch', body: [{ op: 'test', path: '/data/a', value: '2' }] },
  ]),
  patches('JSON patch: removing a missing path', configMaps, configMap('jp4'), [
    { request: 'PATCH @', type: 'json-patch', body: [{ op: 'remove', path: '/data/nothing' }] },
  ]),
  patches('JSON patch: replacing a missing path', configMaps, configMap('jp5'), [
    { request: 'PATCH @', type: 'json-patch', body: [{ op: 'replace', path: '/data/nothing', value: 'x' }] },
  ]),
  patches('JSON patch: an unknown operation and a body that is not a list', configMaps, configMap('jp6'), [
    { request: 'PATCH @', type: 'json-patch', body: [{ op: 'frobnicate', path: '/data/a' }] },
    { request: 'PATCH @', type: 'json-patch', body: { op: 'add', path: '/data/a', value: 'x' } },
  ]),
  patches(
    'JSON patch: array items of a custom resource by index and with -',
    clusters,
    cluster('jp', { region: 'eu-west-1', tagging: { extraRegions: ['us-east-1'] } }),
    [
      {
        request: 'PATCH @',
        type: 'json-patch',
        body: [{ op: 'add', path: '/spec/tagging/extraRegions/-', value: 'us-west-2' }],
      },
      {
        request: 'PATCH @',
        type: 'json-patch',
        body: [{ op: 'add', path: '/spec/tagging/extraRegions/0', value: 'eu-north-1' }],
      },
      { request: 'PATCH @', type: 'json-patch', body: [{ op: 'remove', path: '/spec/tagging/extraRegions/1' }] },
    ],
  ),
  patches(
    'JSON patch: an out-of-range index',
    clusters,
    cluster('jp-range', { region: 'eu-west-1', tagging: { extraRegions: ['us-east-1'] } }),
    [
      {
        request: 'PATCH @',
        type: 'json-patch',
        body: [{ op: 'add', path: '/spec/tagging/extraRegions/5', value: 'us-west-2' }],
      },
    ],
  ),
  patches('JSON patch: escaped keys (~1 and ~0)', configMaps, configMap('jp-escape'), [
    { request: 'PATCH @', type: 'json-patch', body: [{ op: 'add', path: '/metadata/annotations', value: {} }] },
    {
      request: 'PATCH @',
      type: 'json-patch',
      body: [{ op: 'add', path: '/metadata/annotations/example.com~1a~0b', value: 'v' }],
    },
  ]),
  patches('strategic merge patch: containers merge by name', deployments, deployment('smp'), [
    {
      request: 'PATCH @',
      type: 'strategic',
      body: {
        spec: {
          template: {
            spec: {
              containers: [
                { name: 'sidecar', image: 'busybox:1.36' },
                { name: 'web', image: 'nginx:1.28' },
              ],
            },
          },
        },
      },
    },
  ]),
  patches('strategic merge patch: $patch delete of a container', deployments, deployment('smp-delete'), [
    {
      request: 'PATCH @',
      type: 'strategic',
      body: { spec: { template: { spec: { containers: [{ name: 'sidecar', image: 'busybox:1.36' }] } } } },
    },
    {
      request: 'PATCH @',
      type: 'strategic',
      body: { spec: { template: { spec: { containers: [{ name: 'web', $patch: 'delete' }] } } } },
    },
  ]),
  patches('strategic merge patch: env merges by name, $patch replace', deployments, deployment('smp-env'), [
    {
      request: 'PATCH @',
      type: 'strategic',
      body: {
        spec: {
          template: {
            spec: {
              containers: [
                {
                  name: 'web',
                  env: [
                    { name: 'A', value: '1' },
                    { name: 'B', value: '2' },
                  ],
                },
              ],
            },
          },
        },
      },
    },
    {
      request: 'PATCH @',
      type: 'strategic',
      body: { spec: { template: { spec: { containers: [{ name: 'web', env: [{ name: 'B', value: '20' }] }] } } } },
    },
    {
      request: 'PATCH @',
      type: 'strategic',
      body: {
        spec: {
          template: {
            spec: { containers: [{ name: 'web', env: [{ name: 'C', value: '3' }, { $patch: 'replace' }] }] },
          },
        },
      },
    },
  ]),
  patches(
    'strategic merge patch: finalizers merge as a set, $deleteFromPrimitiveList',
    configMaps,
    configMap('smp-fin', {}, { finalizers: ['a.example.com/x'] }),
    [
      { request: 'PATCH @', type: 'strategic', body: { metadata: { finalizers: ['b.example.com/y'] } } },
      {
        request: 'PATCH @',
        type: 'strategic',
        body: { metadata: { '$deleteFromPrimitiveList/finalizers': ['a.example.com/x', 'b.example.com/y'] } },
      },
    ],
  ),
  patches(
    'strategic merge patch: $retainKeys',
    deployments,
    deployment('smp-retain', { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 2 } } }),
    [
      {
        request: 'PATCH @',
        type: 'strategic',
        body: { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } },
      },
    ],
  ),
  patches('strategic merge patch: $setElementOrder', deployments, deployment('smp-order'), [
    {
      request: 'PATCH @',
      type: 'strategic',
      body: {
        spec: {
          template: {
            spec: {
              containers: [
                { name: 'a', image: 'a:1' },
                { name: 'b', image: 'b:1' },
              ],
            },
          },
        },
      },
    },
    {
      request: 'PATCH @',
      type: 'strategic',
      body: {
        spec: {
          template: { spec: { '$setElementOrder/containers': [{ name: 'b' }, { name: 'web' }, { name: 'a' }] } },
        },
      },
    },
  ]),
  patches('strategic merge patch: a custom resource is refused (415)', clusters, cluster('smp-cr'), [
    { request: 'PATCH @', type: 'strategic', body: { spec: { region: 'us-east-1' } } },
  ]),
  patches('patch with an unknown content type', configMaps, configMap('ctype'), [
    { request: 'PATCH @', type: 'application/json', body: { data: { a: '1' } } },
    { request: 'PATCH @', type: 'text/plain', body: 'hello' },
  ]),
  patches('merge patch: an invalid result is refused', clusters, cluster('invalid-result'), [
    { request: 'PATCH @', type: 'merge', body: { spec: { region: 'Mars' } } },
    { request: 'PATCH @', type: 'merge', body: { spec: { region: null } } },
  ]),
  patches('patch with dryRun changes nothing', configMaps, configMap('dry-patch'), [
    { request: 'PATCH @?dryRun=All', type: 'merge', body: { data: { mode: 'slow' } } },
  ]),
  patches('patch with fieldManager names the manager', configMaps, configMap('manager'), [
    { request: 'PATCH @?fieldManager=patcher', type: 'merge', body: { data: { extra: '1' } } },
  ]),
];
