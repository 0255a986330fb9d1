import type { Sequence, Step } from '../sequence.js';
import {
  API,
  cluster,
  configMap,
  controllerIdentity,
  deployment,
  PATHS,
  roleIdentity,
  staticIdentity,
  tagPolicy,
} from './objects.js';

const { clusters, configMaps } = PATHS;

/** One create per invalid body: each answer's Status (reason, message, causes) is compared. */
function invalid(name: string, collection: string, bodies: Record<string, unknown>[], cleanup?: string[]): Sequence {
  return {
    name,
    area: 'validation',
    steps: bodies.map((body): Step => ({ request: `POST ${collection}`, body })),
    ...(cleanup ? { cleanup } : {}),
  };
}

/** Creates `body`, then sends each change as a merge patch. */
function transitions(
  name: string,
  collection: string,
  body: Record<string, unknown>,
  changes: Record<string, unknown>[],
  cleanup?: string[],
): Sequence {
  const objectName = (body.metadata as { name: string }).name;
  return {
    name,
    area: 'validation',
    steps: [
      { request: `POST ${collection}`, body },
      ...changes.map((change): Step => ({ request: `PATCH ${collection}/${objectName}`, type: 'merge', body: change })),
    ],
    ...(cleanup ? { cleanup } : {}),
  };
}

const tags = (keys: string[]) => Object.fromEntries(keys.map((key) => [key, 'v']));

export const validation: Sequence[] = [
  invalid('schema: region pattern and maxLength', clusters, [
    cluster('v1', { region: 'Mars' }),
    cluster('v2', { region: 'eu-west-1-very-very-long-region-name-9' }),
  ]),
  invalid('schema: spec.region required, spec required', clusters, [
    cluster('v3', {}),
    { apiVersion: API, kind: 'AWSCluster', metadata: { name: 'v4' } },
  ]),
  invalid('schema: enum of identityRef.kind', clusters, [
    cluster('v5', { region: 'eu-west-1', identityRef: { kind: 'Nobody', name: 'x' } }),
  ]),
  invalid('schema: wrong types', clusters, [
    cluster('v6', { region: 7 }),
    cluster('v7', { region: 'eu-west-1', tagging: { paused: 'yes' } }),
    cluster('v8', { region: 'eu-west-1', additionalTags: ['a'] }),
    cluster('v9', { region: 'eu-west-1', tagging: 'on' }),
  ]),
  invalid('schema: several errors at once', clusters, [
    cluster('v10', {
      region: 'X',
      identityRef: { kind: 'Nobody' },
      tagging: { removalPolicy: 'Sometimes', extraRegions: ['a'] },
    }),
  ]),
  invalid('schema: a set list with duplicates and too many items', clusters, [
    cluster('v11', { region: 'eu-west-1', tagging: { extraRegions: ['us-east-1', 'us-east-1'] } }),
    cluster('v12', {
      region: 'eu-west-1',
      tagging: { extraRegions: Array.from({ length: 17 }, (_, i) => `us-east-${i + 1}`) },
    }),
  ]),
  invalid(
    'schema: a map list with a duplicate key',
    PATHS.tagPolicies,
    [
      tagPolicy('default', {
        resourceTags: [
          { key: 'a', value: '1' },
          { key: 'a', value: '2' },
        ],
      }),
    ],
    [`${PATHS.tagPolicies}/default`],
  ),
  invalid(
    'schema: map-list items missing required keys',
    PATHS.tagPolicies,
    [tagPolicy('default', { resourceTags: [{ value: '1' }] })],
    [`${PATHS.tagPolicies}/default`],
  ),
  invalid('schema: tag value pattern with Unicode letters accepted, symbols refused', clusters, [
    cluster('v13', { region: 'eu-west-1', additionalTags: { team: 'Équipe 1' } }),
    cluster('v14', { region: 'eu-west-1', additionalTags: { team: 'a<b>' } }),
  ]),
  invalid('schema: maxProperties of additionalTags', clusters, [
    cluster('v15', { region: 'eu-west-1', additionalTags: tags(Array.from({ length: 51 }, (_, i) => `k${i}`)) }),
  ]),
  invalid('schema: integer bounds and string lengths of a role identity', PATHS.roleIdentities, [
    roleIdentity('fidelity-v16', { durationSeconds: 60 }),
    roleIdentity('fidelity-v17', { durationSeconds: 50000, sessionName: 'x' }),
    roleIdentity('fidelity-v18', { roleARN: 'arn:aws:iam::123:role/x' }),
    roleIdentity('fidelity-v19', { durationSeconds: 1.5 }),
  ]),
  invalid('CEL: tag keys starting with aws: (any case)', clusters, [
    cluster('c1', { region: 'eu-west-1', additionalTags: { 'aws:team': 'x' } }),
    cluster('c2', { region: 'eu-west-1', additionalTags: { 'AWS:Team': 'x' } }),
  ]),
  invalid('CEL: tag keys with whitespace around or forbidden characters', clusters, [
    cluster('c3', { region: 'eu-west-1', additionalTags: { ' team': 'x' } }),
    cluster('c4', { region: 'eu-west-1', additionalTags: { 'team!': 'x' } }),
    cluster('c5', { region: 'eu-west-1', additionalTags: { '': 'x' } }),
  ]),
  invalid(
    'CEL: resourceTags keys of a tag policy',
    PATHS.tagPolicies,
    [
      tagPolicy('default', { resourceTags: [{ key: 'aws:x', value: '1' }] }),
      tagPolicy('default', { resourceTags: [{ key: 'x ', value: '1' }] }),
    ],
    [`${PATHS.tagPolicies}/default`],
  ),
  invalid(
    'CEL: a tag policy other than default must select clusters',
    PATHS.tagPolicies,
    [tagPolicy('other')],
    [`${PATHS.tagPolicies}/other`],
  ),
  invalid(
    'CEL: the controller identity is a singleton named default',
    PATHS.controllerIdentities,
    [controllerIdentity('other')],
    [`${PATHS.controllerIdentities}/other`],
  ),
  invalid('CEL: durationSeconds of a role chained from a role', PATHS.roleIdentities, [
    roleIdentity('fidelity-c6', {
      sourceIdentityRef: { kind: 'AWSClusterRoleIdentity', name: 'base' },
      durationSeconds: 7200,
    }),
  ]),
  invalid('CEL: transitiveTagKeys must be session tag keys', PATHS.roleIdentities, [
    roleIdentity('fidelity-c7', { transitiveTagKeys: ['team'] }),
    roleIdentity('fidelity-c8', { sessionTags: [{ key: 'team', value: 'a' }], transitiveTagKeys: ['team', 'env'] }),
  ]),
  transitions('CEL: clusterName is immutable', clusters, cluster('t1', { region: 'eu-west-1', clusterName: 'prod' }), [
    { spec: { clusterName: 'staging' } },
    { spec: { clusterName: null } },
  ]),
  transitions('CEL: clusterName cannot be added after creation', clusters, cluster('t2'), [
    { spec: { clusterName: 'late' } },
  ]),
  transitions('CEL: identityRef cannot be removed', clusters, cluster('t3'), [{ spec: { identityRef: null } }]),
  transitions(
    'CEL: secretRef of a static identity is immutable',
    PATHS.staticIdentities,
    staticIdentity('fidelity-t4'),
    [{ spec: { secretRef: 'other' } }],
    [`${PATHS.staticIdentities}/fidelity-t4`],
  ),
  transitions('schema: ratcheting lets an unchanged invalid-by-rule value stay', clusters, cluster('t5'), [
    { metadata: { labels: { touched: 'yes' } } },
    { spec: { additionalTags: { ok: 'yes' } } },
  ]),
  {
    name: 'fieldValidation: unknown fields with Strict, Warn and Ignore',
    area: 'validation',
    steps: [
      {
        request: `POST ${clusters}?fieldValidation=Strict`,
        body: cluster('f1', { region: 'eu-west-1', colour: 'red' }),
      },
      { request: `POST ${clusters}?fieldValidation=Warn`, body: cluster('f2', { region: 'eu-west-1', colour: 'red' }) },
      {
        request: `POST ${clusters}?fieldValidation=Ignore`,
        body: cluster('f3', { region: 'eu-west-1', colour: 'red' }),
      },
      { request: `POST ${clusters}`, body: { ...cluster('f4'), extra: { nested: true } } },
      { request: `POST ${clusters}?fieldValidation=Sometimes`, body: cluster('f5') },
    ],
  },
  {
    name: 'fieldValidation: unknown metadata and built-in fields',
    area: 'validation',
    steps: [
      {
        request: `POST ${configMaps}?fieldValidation=Strict`,
        body: { ...configMap('f6'), metadata: { name: 'f6', colour: 'red' } },
      },
      { request: `POST ${configMaps}?fieldValidation=Strict`, body: { ...configMap('f7'), spec: {} } },
      { request: `POST ${configMaps}`, body: { ...configMap('f8'), spec: {}, other: 1 } },
      {
        request: `POST ${clusters}?fieldValidation=Strict`,
        body: cluster('f9', { region: 'eu-west-1', tagging: { paused: false, speed: 3 } }),
      },
    ],
  },
  {
    name: 'fieldValidation: duplicate fields in the JSON body',
    area: 'validation',
    steps: [
      {
        request: `POST ${configMaps}?fieldValidation=Strict`,
        body: '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dup"},"data":{"a":"1"},"data":{"b":"2"}}',
      },
      {
        request: `POST ${configMaps}`,
        body: '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dup2"},"data":{"a":"1","a":"2"}}',
      },
    ],
  },
  invalid('built-in: ConfigMap keys and Secret data', configMaps, [
    configMap('b1', { 'not valid': 'x' }),
    configMap('b2', { '..': 'x' }),
    { ...configMap('b3'), binaryData: { mode: 'eA==' } },
  ]),
  invalid('built-in: Secret data that is not base64', PATHS.secrets, [
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'b4' }, data: { key: 'not base64!' } },
  ]),
  invalid('built-in: labels and annotations', configMaps, [
    configMap('b5', {}, { labels: { 'bad key!': 'x' } }),
    configMap('b6', {}, { labels: { ok: 'value with spaces' } }),
    configMap('b7', {}, { labels: { ok: 'x'.repeat(64) } }),
    configMap('b8', {}, { annotations: { 'Bad/Key/Twice': 'x' } }),
  ]),
  invalid('built-in: a Deployment whose selector does not match its template', PATHS.deployments, [
    {
      ...deployment('b9'),
      spec: { ...(deployment('b9').spec as object), selector: { matchLabels: { app: 'other' } } },
    },
    {
      ...deployment('b10'),
      spec: {
        selector: { matchLabels: { app: 'b10' } },
        template: { metadata: { labels: { app: 'b10' } }, spec: { containers: [] } },
      },
    },
    deployment('b11', { replicas: -1 }),
  ]),
  invalid('built-in: Service ports', PATHS.services, [
    { apiVersion: 'v1', kind: 'Service', metadata: { name: 'b12' }, spec: { ports: [{ port: 70000 }] } },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'b13' },
      spec: { type: 'Elsewhere', ports: [{ port: 80 }] },
    },
  ]),
  invalid('built-in: RBAC rules and bindings', PATHS.roles, [
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'b14' },
      rules: [{ apiGroups: [''], resources: ['pods'] }],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'b15' },
      rules: [{ verbs: ['get'], nonResourceURLs: ['/x'] }],
    },
  ]),
  {
    name: 'built-in: a RoleBinding cannot change its roleRef',
    area: 'validation',
    steps: [
      {
        request: `POST ${PATHS.roleBindings}`,
        body: {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'RoleBinding',
          metadata: { name: 'fixed' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
          subjects: [{ kind: 'ServiceAccount', name: 'default' }],
        },
      },
      { request: `PATCH ${PATHS.roleBindings}/fixed`, type: 'merge', body: { roleRef: { name: 'edit' } } },
      {
        request: `POST ${PATHS.roleBindings}`,
        body: {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'RoleBinding',
          metadata: { name: 'no-ref' },
          subjects: [],
        },
      },
    ],
  },
  {
    name: 'immutable ConfigMaps and Secrets',
    area: 'validation',
    steps: [
      { request: `POST ${configMaps}`, body: { ...configMap('frozen'), immutable: true } },
      { request: `PATCH ${configMaps}/frozen`, type: 'merge', body: { data: { mode: 'slow' } } },
      { request: `PATCH ${configMaps}/frozen`, type: 'merge', body: { immutable: false } },
      { request: `PATCH ${configMaps}/frozen`, type: 'merge', body: { metadata: { labels: { ok: 'yes' } } } },
    ],
  },
  {
    name: 'CRD: a rule whose fieldPath is not in the schema',
    area: 'validation',
    steps: [
      {
        request: `POST ${PATHS.crds}`,
        body: testCrd('badpaths', {
          type: 'object',
          properties: { spec: { type: 'object', properties: { a: { type: 'string' } } } },
          'x-kubernetes-validations': [{ rule: 'true', fieldPath: '.spec.b' }],
        }),
      },
      {
        request: `POST ${PATHS.crds}`,
        body: testCrd('badrules', {
          type: 'object',
          properties: { spec: { type: 'object', 'x-kubernetes-validations': [{ rule: 'self.nothing(' }] } },
        }),
      },
    ],
    cleanup: [`${PATHS.crds}/badpaths.fidelity.keymaster.dev`, `${PATHS.crds}/badrules.fidelity.keymaster.dev`],
  },
  {
    name: 'CRD: a rule pointing at metadata.name when the schema does not declare it',
    area: 'validation',
    steps: [
      {
        request: `POST ${PATHS.crds}`,
        body: testCrd('singletons', {
          type: 'object',
          properties: { metadata: { type: 'object' }, spec: { type: 'object' } },
          'x-kubernetes-validations': [{ rule: "self.metadata.name == 'default'", fieldPath: '.metadata.name' }],
        }),
      },
    ],
    cleanup: [`${PATHS.crds}/singletons.fidelity.keymaster.dev`],
  },
  {
    name: 'CRD: a rule whose estimated cost is over the budget',
    area: 'validation',
    steps: [
      {
        request: `POST ${PATHS.crds}`,
        body: testCrd('costlies', {
          type: 'object',
          properties: {
            spec: {
              type: 'object',
              properties: { items: { type: 'array', items: { type: 'string' } } },
              'x-kubernetes-validations': [
                { rule: 'self.items.all(a, self.items.all(b, self.items.all(c, a + b + c != "")))' },
              ],
            },
          },
        }),
        pick: (body) => (body as { kind: unknown }).kind,
      },
    ],
    cleanup: [`${PATHS.crds}/costlies.fidelity.keymaster.dev`],
  },
  {
    name: 'CRD: structural schema errors',
    area: 'validation',
    steps: [
      {
        request: `POST ${PATHS.crds}`,
        body: testCrd('untyped', { type: 'object', properties: { spec: { properties: { a: { type: 'string' } } } } }),
      },
      {
        request: `POST ${PATHS.crds}`,
        body: { ...testCrd('misnamed', { type: 'object' }), metadata: { name: 'wrong.fidelity.keymaster.dev' } },
      },
    ],
    cleanup: [`${PATHS.crds}/untyped.fidelity.keymaster.dev`, `${PATHS.crds}/wrong.fidelity.keymaster.dev`],
  },
  {
    name: 'CRD: a new kind is served, validated, and its deletion removes its objects',
    area: 'validation',
    steps: [
      {
        request: `POST ${PATHS.crds}`,
        body: testCrd('widgets', {
          type: 'object',
          properties: {
            spec: {
              type: 'object',
              properties: { size: { type: 'integer', minimum: 1, default: 3 } },
              'x-kubernetes-validations': [
                // string(self.size) would be over kube-apiserver's cost budget (an int's string has no bounded size).
                {
                  rule: 'self.size < 10',
                  messageExpression: "self.size > 100 ? 'size is far too big' : 'size is too big'",
                },
              ],
            },
          },
        }),
        pick: (body) => ({
          metadata: (body as { metadata: unknown }).metadata,
          spec: (body as { spec: unknown }).spec,
        }),
      },
      {
        request: `GET ${PATHS.crds}/widgets.fidelity.keymaster.dev`,
        // kube-apiserver's naming controller accepts the names a moment after the create.
        until: ({ status, body }) =>
          status === 200 &&
          Boolean((body as { status?: { acceptedNames?: { kind?: string } } }).status?.acceptedNames?.kind),
        pick: (body) => (body as { status: { acceptedNames: unknown } }).status.acceptedNames,
      },
      { request: 'GET /apis/fidelity.keymaster.dev/v1/namespaces/{ns}/widgets', until: 200 },
      {
        request: 'POST /apis/fidelity.keymaster.dev/v1/namespaces/{ns}/widgets',
        body: { apiVersion: 'fidelity.keymaster.dev/v1', kind: 'Widget', metadata: { name: 'w' }, spec: {} },
      },
      {
        request: 'POST /apis/fidelity.keymaster.dev/v1/namespaces/{ns}/widgets',
        body: {
          apiVersion: 'fidelity.keymaster.dev/v1',
          kind: 'Widget',
          metadata: { name: 'big' },
          spec: { size: 12 },
        },
      },
      {
        request: `DELETE ${PATHS.crds}/widgets.fidelity.keymaster.dev`,
        pick: (body) => (body as { metadata: { name: unknown } }).metadata.name,
      },
      {
        request: 'GET /apis/fidelity.keymaster.dev/v1/namespaces/{ns}/widgets/w',
        // Until the resource is no longer served (kube-apiserver serves it, without the object, while
        // the CRD waits for its cleanup finalizer).
        until: ({ status, body }) => status === 404 && typeof body === 'string',
      },
      { request: `GET ${PATHS.crds}/widgets.fidelity.keymaster.dev`, until: 404 },
    ],
    cleanup: [`${PATHS.crds}/widgets.fidelity.keymaster.dev`],
  },
];

function testCrd(plural: string, schema: Record<string, unknown>): Record<string, unknown> {
  const singular = plural.replace(/s$/, '');
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.fidelity.keymaster.dev` },
    spec: {
      group: 'fidelity.keymaster.dev',
      names: {
        plural,
        singular,
        kind: singular[0]!.toUpperCase() + singular.slice(1),
        listKind: `${singular[0]!.toUpperCase()}${singular.slice(1)}List`,
      },
      scope: 'Namespaced',
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }],
    },
  };
}
