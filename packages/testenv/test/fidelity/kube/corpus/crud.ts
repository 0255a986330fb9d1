import type { Sequence } from '../sequence.js';
import {
  API,
  cluster,
  configMap,
  controllerIdentity,
  deployment,
  PATHS,
  role,
  roleIdentity,
  secret,
  staticIdentity,
  tagPolicy,
} from './objects.js';

const { configMaps, secrets, clusters } = PATHS;

/** Create, get, replace (with the resourceVersion read), delete and get again. */
function lifecycle(
  name: string,
  collection: string,
  body: Record<string, unknown>,
  changed: Record<string, unknown>,
): Sequence {
  const objectName = (body.metadata as { name: string }).name;
  return {
    name,
    area: 'crud',
    steps: [
      { request: `POST ${collection}`, body },
      { request: `GET ${collection}/${objectName}` },
      {
        request: `PUT ${collection}/${objectName}`,
        body: {
          ...changed,
          metadata: { ...(changed.metadata as object), resourceVersion: '{{1.metadata.resourceVersion}}' },
        },
      },
      { request: `DELETE ${collection}/${objectName}` },
      { request: `GET ${collection}/${objectName}` },
    ],
    ...(collection.includes('{ns}') ? {} : { cleanup: [`${collection}/${objectName}`] }),
  };
}

export const crud: Sequence[] = [
  lifecycle(
    'ConfigMap: create, get, replace, delete',
    configMaps,
    configMap('settings'),
    configMap('settings', { mode: 'slow' }),
  ),
  lifecycle(
    'Secret: stringData folded into data, type defaulted',
    secrets,
    secret('creds'),
    secret('creds', { data: { password: 'bmV3' }, type: 'Opaque' }),
  ),
  lifecycle(
    'ServiceAccount: create, replace, delete',
    PATHS.serviceAccounts,
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot' } },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot' }, automountServiceAccountToken: false },
  ),
  lifecycle(
    'Service: defaults of type, sessionAffinity and port protocol',
    PATHS.services,
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web' },
      spec: { selector: { app: 'web' }, ports: [{ port: 80 }] },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web' },
      spec: { selector: { app: 'api' }, ports: [{ port: 80 }] },
    },
  ),
  lifecycle(
    'Deployment: defaults and generation',
    PATHS.deployments,
    deployment('web'),
    deployment('web', { replicas: 3 }),
  ),
  lifecycle(
    'Lease: create, renew, delete',
    PATHS.leases,
    {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'leader' },
      spec: { holderIdentity: 'a', leaseDurationSeconds: 15 },
    },
    {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'leader' },
      spec: { holderIdentity: 'b', leaseDurationSeconds: 15 },
    },
  ),
  lifecycle(
    'Role: create, replace, delete',
    PATHS.roles,
    role('reader', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }]),
    role('reader', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }]),
  ),
  lifecycle(
    'ClusterRole: create, replace, delete',
    PATHS.clusterRoles,
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'fidelity-reader' },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'fidelity-reader' },
      rules: [{ nonResourceURLs: ['/healthz'], verbs: ['get'] }],
    },
  ),
  lifecycle(
    'AWSCluster: create with defaults, replace, delete',
    clusters,
    cluster('alpha'),
    cluster('alpha', { region: 'us-east-1' }),
  ),
  lifecycle(
    'AWSClusterStaticIdentity: create, replace, delete',
    PATHS.staticIdentities,
    staticIdentity('fidelity-static'),
    staticIdentity('fidelity-static', { allowedNamespaces: { list: ['a', 'b'] } }),
  ),
  lifecycle(
    'AWSClusterRoleIdentity: defaults of resourceTags, replace, delete',
    PATHS.roleIdentities,
    roleIdentity('fidelity-role', { resourceTags: [{ key: 'team', value: 'a' }] }),
    roleIdentity('fidelity-role', { durationSeconds: 1800 }),
  ),
  lifecycle(
    'AWSClusterControllerIdentity: the singleton default',
    PATHS.controllerIdentities,
    controllerIdentity(),
    controllerIdentity('default', { allowedNamespaces: { selector: { matchLabels: { tenant: 'yes' } } } }),
  ),
  lifecycle(
    'AWSTagPolicy: the singleton default',
    PATHS.tagPolicies,
    tagPolicy('default', { resourceTags: [{ key: 'owner', value: 'platform' }] }),
    tagPolicy('default', { resourceTags: [{ key: 'owner', value: 'platform', overridePolicy: 'Deny' }] }),
  ),
  {
    name: 'create with generateName',
    area: 'crud',
    steps: [
      {
        request: `POST ${configMaps}`,
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'gen-' } },
      },
      { request: `POST ${clusters}`, body: { ...cluster(''), metadata: { generateName: 'cluster-' } } },
    ],
  },
  {
    name: 'empty labels, annotations and finalizers of a custom resource',
    area: 'crud',
    steps: [
      {
        request: `POST ${clusters}`,
        body: cluster(
          'empties',
          { region: 'eu-west-1', additionalTags: {} },
          { labels: {}, annotations: {}, finalizers: [] },
        ),
      },
      { request: `PATCH ${clusters}/empties`, type: 'merge', body: { metadata: { labels: { a: 'b' } } } },
      {
        request: `PATCH ${clusters}/empties`,
        type: 'json-patch',
        body: [{ op: 'remove', path: '/metadata/labels/a' }],
      },
    ],
  },
  {
    name: 'create of an existing name is AlreadyExists',
    area: 'crud',
    steps: [
      { request: `POST ${configMaps}`, body: configMap('twice') },
      { request: `POST ${configMaps}`, body: configMap('twice') },
      { request: `POST ${clusters}`, body: cluster('twice') },
      { request: `POST ${clusters}`, body: cluster('twice') },
    ],
  },
  {
    name: 'get, replace and delete of a missing object are NotFound',
    area: 'crud',
    steps: [
      { request: `GET ${configMaps}/missing` },
      { request: `PUT ${configMaps}/missing`, body: configMap('missing') },
      { request: `DELETE ${configMaps}/missing` },
      { request: `GET ${clusters}/missing` },
      { request: `DELETE ${clusters}/missing` },
      { request: `GET ${PATHS.tagPolicies}/missing` },
    ],
  },
  {
    name: 'create in a namespace that does not exist',
    area: 'crud',
    steps: [
      { request: 'POST /api/v1/namespaces/fidelity-nowhere/configmaps', body: configMap('x') },
      { request: `POST /apis/${API}/namespaces/fidelity-nowhere/awsclusters`, body: cluster('x') },
    ],
  },
  {
    name: 'replace with a name other than the path',
    area: 'crud',
    steps: [
      { request: `POST ${configMaps}`, body: configMap('one') },
      { request: `PUT ${configMaps}/one`, body: configMap('two') },
      { request: `POST ${clusters}`, body: cluster('one') },
      {
        request: `PUT ${clusters}/one`,
        body: { ...cluster('two'), metadata: { name: 'two', resourceVersion: '{{2.metadata.resourceVersion}}' } },
      },
    ],
  },
  {
    name: 'create with a namespace other than the path',
    area: 'crud',
    steps: [
      { request: `POST ${configMaps}`, body: configMap('elsewhere', {}, { namespace: 'default' }) },
      { request: `POST ${clusters}`, body: cluster('elsewhere', { region: 'eu-west-1' }, { namespace: 'default' }) },
    ],
  },
  {
    name: 'replace without a resourceVersion: unconditional for ConfigMaps, refused for custom resources',
    area: 'crud',
    steps: [
      { request: `POST ${configMaps}`, body: configMap('loose') },
      { request: `PUT ${configMaps}/loose`, body: configMap('loose', { mode: 'any' }) },
      { request: `POST ${clusters}`, body: cluster('strict') },
      { request: `PUT ${clusters}/strict`, body: cluster('strict', { region: 'us-west-2' }) },
    ],
  },
  {
    name: 'an invalid object name',
    area: 'crud',
    steps: [
      { request: `POST ${configMaps}`, body: configMap('Not_Valid') },
      { request: `POST ${clusters}`, body: cluster('Not_Valid') },
      { request: 'POST /api/v1/namespaces', body: { metadata: { name: 'Bad.Namespace' } } },
      { request: `POST ${configMaps}`, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} } },
    ],
  },
  {
    name: 'dry-run create and delete change nothing',
    area: 'crud',
    steps: [
      { request: `POST ${configMaps}?dryRun=All`, body: configMap('dry') },
      { request: `GET ${configMaps}/dry` },
      { request: `POST ${clusters}?dryRun=All`, body: cluster('dry') },
      { request: `GET ${clusters}/dry` },
      { request: `POST ${configMaps}`, body: configMap('kept') },
      { request: `DELETE ${configMaps}/kept?dryRun=All` },
      { request: `GET ${configMaps}/kept` },
    ],
  },
  {
    name: 'create from a YAML body',
    area: 'crud',
    steps: [
      {
        request: `POST ${clusters}`,
        type: 'yaml',
        body: `apiVersion: ${API}\nkind: AWSCluster\nmetadata:\n  name: from-yaml\nspec:\n  region: ap-south-1\n`,
      },
      {
        request: `POST ${configMaps}`,
        type: 'yaml',
        body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y\ndata:\n  a: "1"\n',
      },
    ],
  },
  {
    name: 'a body of another kind than the path',
    area: 'crud',
    steps: [
      { request: `POST ${configMaps}`, body: secret('wrong-kind') },
      { request: `POST ${clusters}`, body: { ...cluster('wrong'), kind: 'AWSTagPolicy' } },
      { request: `POST ${clusters}`, body: { ...cluster('wrong'), apiVersion: API.replace('v1beta1', 'v9') } },
    ],
  },
  {
    name: 'a body that is not JSON',
    area: 'crud',
    steps: [
      { request: `POST ${configMaps}`, body: '{"apiVersion": "v1", "kind": ' },
      { request: `POST ${clusters}`, body: '[1, 2]' },
    ],
  },
  {
    name: 'bodies that are not an object, or not JSON in other ways',
    area: 'crud',
    steps: [
      { request: `POST ${configMaps}`, body: '"text"' },
      { request: `POST ${configMaps}`, body: '12' },
      { request: `POST ${configMaps}`, body: 'tru' },
      { request: `POST ${configMaps}`, body: '{"metadata": {"name": "x"}} trailing' },
      {
        request: `POST ${configMaps}`,
        body: '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "late"}, "data": {"a": "1",}}',
      },
      { request: `POST ${clusters}`, body: '{"apiVersion": 1}' },
      { request: `POST ${configMaps}`, body: '{"metadata": {"name": "x"}, "data": {"a": 1}}' },
      { request: `POST ${configMaps}`, body: '' },
      { request: `POST ${configMaps}`, body: 'null' },
    ],
  },
  {
    name: 'a PUT and a DELETE whose body is not JSON',
    area: 'crud',
    steps: [
      { request: `POST ${configMaps}`, body: configMap('put-bad') },
      { request: `PUT ${configMaps}/put-bad`, body: '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {' },
      { request: `DELETE ${configMaps}/put-bad`, body: '{"propagationPolicy": ' },
      { request: `DELETE ${configMaps}/put-bad`, body: '[1]' },
      { request: `GET ${configMaps}/put-bad` },
    ],
  },
  {
    name: 'cluster-scoped kinds under a namespace path, namespaced ones without one',
    area: 'crud',
    steps: [
      { request: `GET /apis/${API}/namespaces/{ns}/awstagpolicies` },
      { request: `POST /apis/${API}/namespaces/{ns}/awstagpolicies`, body: tagPolicy() },
      { request: `POST ${PATHS.allClusters}`, body: cluster('nowhere') },
      { request: 'GET /api/v1/configmaps', pick: (body) => (body as { kind: string }).kind },
    ],
  },
  {
    name: 'events: core/v1 and events.k8s.io/v1 views of one Event',
    area: 'crud',
    steps: [
      {
        request: `POST ${PATHS.events}`,
        body: {
          apiVersion: 'v1',
          kind: 'Event',
          metadata: { name: 'e1' },
          involvedObject: { kind: 'ConfigMap', name: 'settings', namespace: '{ns}', apiVersion: 'v1' },
          reason: 'Tested',
          message: 'a message',
          type: 'Normal',
          source: { component: 'fidelity' },
          count: 1,
        },
      },
      { request: `GET ${PATHS.newEvents}/e1` },
      { request: `GET ${PATHS.events}/e1` },
    ],
  },
  {
    name: 'events.k8s.io/v1 create read through core/v1',
    area: 'crud',
    steps: [
      {
        request: `POST ${PATHS.newEvents}`,
        body: {
          apiVersion: 'events.k8s.io/v1',
          kind: 'Event',
          metadata: { name: 'e2' },
          eventTime: '2025-01-01T00:00:00.000000Z',
          regarding: { kind: 'ConfigMap', name: 'settings', namespace: '{ns}', apiVersion: 'v1' },
          reason: 'Tested',
          action: 'Testing',
          note: 'a note',
          type: 'Warning',
          reportingController: 'keymaster.dev/fidelity',
          reportingInstance: 'fidelity-1',
        },
      },
      { request: `GET ${PATHS.events}/e2` },
    ],
  },
  {
    name: 'admission webhook configurations are stored',
    area: 'crud',
    steps: [
      {
        request: 'POST /apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
        body: {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'ValidatingWebhookConfiguration',
          metadata: { name: 'fidelity-webhook' },
          webhooks: [
            {
              name: 'check.fidelity.keymaster.dev',
              clientConfig: { url: 'https://127.0.0.1:1/check' },
              rules: [
                {
                  apiGroups: [''],
                  apiVersions: ['v1'],
                  operations: ['CREATE'],
                  resources: ['configmaps'],
                  scope: 'Namespaced',
                },
              ],
              sideEffects: 'None',
              admissionReviewVersions: ['v1'],
              namespaceSelector: { matchLabels: { 'fidelity-webhook': 'never' } },
            },
          ],
        },
      },
      { request: 'GET /apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/fidelity-webhook' },
    ],
    cleanup: ['/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/fidelity-webhook'],
  },
];
