import type { Sequence } from '../sequence.js';
import { GROUP } from './objects.js';

type Json = Record<string, unknown>;
const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json';

/** The entries of `list` whose `key` is one of `names` (a server serves more kinds than the emulator). */
const only = (list: unknown, key: string, names: string[]): unknown =>
  (list as Json[]).filter((entry) => names.includes(entry[key] as string));
const resources = (names: string[]) => (body: unknown) => ({
  ...(body as Json),
  resources: only((body as Json).resources, 'name', names),
});

export const discovery: Sequence[] = [
  {
    name: 'discovery: /version',
    area: 'discovery',
    steps: [
      {
        request: 'GET /version',
        pick: (body) => {
          const { major, minor, emulationMajor, emulationMinor, minCompatibilityMajor, minCompatibilityMinor } =
            body as Json;
          return { major, minor, emulationMajor, emulationMinor, minCompatibilityMajor, minCompatibilityMinor };
        },
      },
    ],
  },
  {
    name: 'discovery: /api and /apis',
    area: 'discovery',
    steps: [
      { request: 'GET /api', pick: (body) => ({ ...(body as Json), serverAddressByClientCIDRs: undefined }) },
      {
        request: 'GET /apis',
        pick: (body) => ({
          ...(body as Json),
          groups: only((body as Json).groups, 'name', [
            GROUP,
            'apps',
            'rbac.authorization.k8s.io',
            'apiextensions.k8s.io',
            'coordination.k8s.io',
            'events.k8s.io',
          ]),
        }),
      },
    ],
  },
  {
    name: 'discovery: our API group and its resources',
    area: 'discovery',
    steps: [{ request: `GET /apis/${GROUP}` }, { request: `GET /apis/${GROUP}/v1beta1` }],
  },
  {
    name: 'discovery: the built-in resources the emulator serves',
    area: 'discovery',
    steps: [
      {
        request: 'GET /api/v1',
        pick: resources([
          'namespaces',
          'namespaces/status',
          'namespaces/finalize',
          'configmaps',
          'secrets',
          'serviceaccounts',
          'services',
          'events',
        ]),
      },
      { request: 'GET /apis/apps/v1', pick: resources(['deployments', 'deployments/status']) },
      { request: 'GET /apis/coordination.k8s.io/v1' },
      { request: 'GET /apis/rbac.authorization.k8s.io/v1' },
      {
        request: 'GET /apis/apiextensions.k8s.io/v1',
        pick: resources(['customresourcedefinitions', 'customresourcedefinitions/status']),
      },
      { request: 'GET /apis/events.k8s.io/v1' },
      {
        request: 'GET /apis/admissionregistration.k8s.io/v1',
        pick: resources([
          'mutatingwebhookconfigurations',
          'validatingwebhookconfigurations',
          'validatingadmissionpolicies',
          'validatingadmissionpolicies/status',
          'validatingadmissionpolicybindings',
        ]),
      },
    ],
  },
  {
    name: 'discovery: aggregated discovery of our group',
    area: 'discovery',
    steps: [
      {
        request: 'GET /apis',
        accept: AGGREGATED,
        pick: (body) => ({
          kind: (body as Json).kind,
          apiVersion: (body as Json).apiVersion,
          ours: (body as { items: Json[] }).items.filter((item) => (item.metadata as Json).name === GROUP),
        }),
      },
      {
        request: 'GET /api',
        accept: AGGREGATED,
        pick: (body) => {
          const [core] = (body as { items: { versions: { resources: Json[] }[] }[] }).items;
          return {
            kind: (body as Json).kind,
            resources: core!.versions[0]!.resources.filter((resource) =>
              ['configmaps', 'secrets', 'namespaces'].includes(resource.resource as string),
            ),
          };
        },
      },
    ],
  },
  {
    name: 'discovery: unknown groups, versions and paths',
    area: 'discovery',
    steps: [
      { request: 'GET /apis/nothing.example.com' },
      { request: `GET /apis/${GROUP}/v9` },
      { request: 'GET /api/v2' },
      { request: `GET /apis/${GROUP}/v1beta1/namespaces/{ns}/widgets` },
      { request: 'GET /nothing/here' },
      { request: 'GET /api/v1/widgets' },
      { request: 'GET /apis/apps/v1/namespaces/{ns}/widgets/x' },
      // Namespaces are not deleted as a collection.
      { request: 'DELETE /api/v1/namespaces' },
    ],
  },
  {
    name: 'OpenAPI: the v3 index names our group version',
    area: 'discovery',
    steps: [
      {
        request: 'GET /openapi/v3',
        // kube-apiserver publishes a new CRD's OpenAPI a moment after serving it.
        until: ({ body }) => JSON.stringify(body).includes(GROUP),
        pick: (body) =>
          Object.keys((body as { paths: Json }).paths).filter((path) => path.includes(GROUP) || path === 'api/v1'),
      },
    ],
  },
  {
    name: 'OpenAPI: v3 schemas of our kinds',
    area: 'discovery',
    steps: [
      {
        request: `GET /openapi/v3/apis/${GROUP}/v1beta1`,
        until: 200,
        pick: (body) => {
          const schemas = (body as { components: { schemas: Json } }).components.schemas;
          return Object.fromEntries(Object.entries(schemas).filter(([name]) => name.includes('keymaster')));
        },
      },
    ],
  },
  {
    name: 'OpenAPI: v3 paths and operations of our group',
    area: 'discovery',
    steps: [
      {
        request: `GET /openapi/v3/apis/${GROUP}/v1beta1`,
        until: 200,
        pick: (body) =>
          Object.fromEntries(
            Object.entries((body as { paths: Record<string, Json> }).paths).map(([path, item]) => [
              path,
              Object.keys(item).sort(),
            ]),
          ),
      },
    ],
  },
  {
    name: 'OpenAPI: v2 definitions of our kinds',
    area: 'discovery',
    steps: [
      {
        request: 'GET /openapi/v2',
        until: ({ body }) => JSON.stringify(body).includes('dev.keymaster.infrastructure'),
        pick: (body) =>
          Object.fromEntries(
            Object.entries((body as { definitions: Json }).definitions).filter(([name]) => name.includes('keymaster')),
          ),
      },
    ],
  },
  {
    name: 'OpenAPI: an unknown group version',
    area: 'discovery',
    steps: [{ request: 'GET /openapi/v3/apis/nothing.example.com/v1' }],
  },
  {
    name: 'health endpoints',
    area: 'discovery',
    steps: [{ request: 'GET /healthz' }, { request: 'GET /livez' }, { request: 'GET /readyz' }],
  },
];
