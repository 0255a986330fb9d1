import { createHash } from 'node:crypto';
import type { ResourceRegistry } from '../resources/registry.js';
import type { ResourceDef } from '../resources/types.js';
import { clone, isObject, type Json, type JsonObject } from '../util/json.js';
import { LIST_META_REF, listMetaSchema, OBJECT_META_REF, objectMetaSchema } from './object-meta.js';
import { GIT_VERSION } from '../version.js';

/** `io.k8s.api.core.v1.Secret`, `dev.keymaster.infrastructure.v1beta1.AWSCluster`: OpenAPI definition names. */
export function definitionName(
  resource: { group: string; version: string; crdName?: string | undefined },
  kind: string,
): string {
  if (resource.crdName === undefined) {
    // Named by the group's first label, as Kubernetes does: io.k8s.api.rbac.v1.ClusterRole.
    const group = resource.group === '' ? 'core' : resource.group.split('.')[0]!;
    return `io.k8s.api.${group}.${resource.version}.${kind}`;
  }
  return `${resource.group.split('.').reverse().join('.')}.${resource.version}.${kind}`;
}

const gvk = (resource: ResourceDef, kind = resource.kind): JsonObject => ({
  group: resource.group,
  version: resource.version,
  kind,
});

const CONVENTIONS = 'https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md';

/** The descriptions kube-apiserver publishes for every kind's apiVersion and kind, whatever a schema says. */
const API_VERSION = {
  type: 'string',
  description: `APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: ${CONVENTIONS}#resources`,
};
const KIND = {
  type: 'string',
  description: `Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: ${CONVENTIONS}#types-kinds`,
};

/** A reference with a description: OpenAPI v3 wraps the $ref in allOf, v2 puts it beside the description. */
const describedRef = (ref: string, description: string, v2: boolean): JsonObject =>
  v2 ? { $ref: ref, description } : { description, allOf: [{ $ref: ref }] };

/** A kind's schema as published: metadata refers to ObjectMeta, and the kind carries its GVK. */
function publishedSchema(resource: ResourceDef, refPrefix: string, v2: boolean): JsonObject {
  const schema = clone(resource.schema as unknown as JsonObject);
  const properties = (schema.properties ?? {}) as JsonObject;
  properties.apiVersion = API_VERSION;
  properties.kind = KIND;
  properties.metadata = describedRef(
    `${refPrefix}${OBJECT_META_REF}`,
    `Standard object's metadata. More info: ${CONVENTIONS}#metadata`,
    v2,
  );
  schema.properties = properties;
  schema['x-kubernetes-group-version-kind'] = [gvk(resource)];
  // Swagger 2.0 has no place for a structural default: kube-apiserver leaves them out of v2.
  return v2 ? withoutDefaults(schema) : schema;
}

function withoutDefaults(value: JsonObject): JsonObject {
  const result: JsonObject = {};
  for (const [key, item] of Object.entries(value)) {
    if (key === 'default') continue;
    result[key] = isObject(item)
      ? withoutDefaults(item)
      : Array.isArray(item)
        ? item.map((entry) => (isObject(entry) ? withoutDefaults(entry) : entry))
        : item;
  }
  return result;
}

function listSchema(resource: ResourceDef, refPrefix: string, v2: boolean): JsonObject {
  return {
    type: 'object',
    description: `${resource.listKind} is a list of ${resource.kind}`,
    required: ['items'],
    properties: {
      apiVersion: API_VERSION,
      kind: KIND,
      metadata: describedRef(
        `${refPrefix}${LIST_META_REF}`,
        `Standard list metadata. More info: ${CONVENTIONS}#types-kinds`,
        v2,
      ),
      items: {
        type: 'array',
        description: `List of ${resource.plural}. More info: ${CONVENTIONS}`,
        items: { $ref: `${refPrefix}${definitionName(resource, resource.kind)}` },
      },
    },
    'x-kubernetes-group-version-kind': [gvk(resource, resource.listKind)],
  };
}

const QUERY = (name: string, description: string): JsonObject => ({
  name,
  in: 'query',
  description,
  schema: { type: 'string', uniqueItems: true },
});
const PATH = (name: string): JsonObject => ({
  name,
  in: 'path',
  required: true,
  description: `${name} of the object`,
  schema: { type: 'string', uniqueItems: true },
});

const PATCH_CONTENT = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
];

function operation(resource: ResourceDef, action: string, ref: string, extra: JsonObject = {}): JsonObject {
  return {
    description: `${action} the specified ${resource.kind}`,
    operationId: `${action}${resource.kind}`,
    responses: { '200': { description: 'OK', content: { 'application/json': { schema: { $ref: ref } } } } },
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': gvk(resource),
    ...extra,
  };
}

/** The paths of one resource: enough for kubectl to see which query parameters and patch types it takes. */
function pathsOf(resource: ResourceDef): JsonObject {
  const prefix = resource.group ? `/apis/${resource.group}/${resource.version}` : `/api/${resource.version}`;
  const scope = resource.namespaced ? '/namespaces/{namespace}' : '';
  const ref = `#/components/schemas/${definitionName(resource, resource.kind)}`;
  const writeParameters = [
    QUERY('dryRun', 'When present, indicates that modifications should not be persisted.'),
    QUERY('fieldManager', 'fieldManager is a name associated with the actor or entity that is making these changes.'),
    QUERY(
      'fieldValidation',
      'fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields: Ignore, Warn or Strict.',
    ),
  ];
  const post = operation(resource, 'post', ref, {
    parameters: writeParameters,
    requestBody: { content: { '*/*': { schema: { $ref: ref } } }, required: true },
  });
  // Reviews are only created: one POST path.
  if (resource.verbs && !resource.verbs.includes('get')) return { [`${prefix}${scope}/${resource.plural}`]: { post } };
  const patchTypes = PATCH_CONTENT.filter((type) => resource.strategicMergePatch || !type.includes('strategic'));
  const patch = operation(resource, 'patch', ref, {
    parameters: [...writeParameters, QUERY('force', 'Force is going to "force" Apply requests.')],
    requestBody: {
      content: Object.fromEntries(patchTypes.map((type) => [type, { schema: { type: 'object' } }])),
      required: true,
    },
  });
  const subresource = {
    get: operation(resource, 'get', ref),
    put: operation(resource, 'put', ref, {
      parameters: writeParameters,
      requestBody: { content: { '*/*': { schema: { $ref: ref } } }, required: true },
    }),
    patch,
    parameters: [PATH('name'), ...(resource.namespaced ? [PATH('namespace')] : [])],
  };
  const item = { ...subresource, delete: operation(resource, 'delete', ref) };
  const list = operation(resource, 'list', `#/components/schemas/${definitionName(resource, resource.listKind)}`);
  const collection = {
    get: list,
    post,
    ...(resource.verbs?.includes('deletecollection') === false
      ? {}
      : { delete: operation(resource, 'deletecollection', ref) }),
    parameters: resource.namespaced ? [PATH('namespace')] : [],
  };
  const paths: JsonObject = {
    // A namespaced kind is also listed across all namespaces.
    ...(resource.namespaced ? { [`${prefix}/${resource.plural}`]: { get: list, parameters: [] } } : {}),
    [`${prefix}${scope}/${resource.plural}`]: collection,
    [`${prefix}${scope}/${resource.plural}/{name}`]: item,
  };
  if (resource.statusSubresource) paths[`${prefix}${scope}/${resource.plural}/{name}/status`] = subresource;
  return paths;
}

/** The definitions of a set of resources (kinds, lists, ObjectMeta), with refs under `refPrefix`. */
function definitionsOf(resources: ResourceDef[], refPrefix: string, v2 = false): JsonObject {
  const definitions: JsonObject = {
    [OBJECT_META_REF]: objectMetaSchema as unknown as Json,
    [LIST_META_REF]: listMetaSchema as unknown as Json,
  };
  for (const resource of resources) {
    definitions[definitionName(resource, resource.kind)] = publishedSchema(resource, refPrefix, v2);
    if (!resource.verbs || resource.verbs.includes('list'))
      definitions[definitionName(resource, resource.listKind)] = listSchema(resource, refPrefix, v2);
  }
  return definitions;
}

const gvPath = (group: string, version: string): string => (group ? `apis/${group}/${version}` : `api/${version}`);

/** OpenAPI documents derived from the registry, rebuilt only when it changes. */
export class OpenApi {
  private cachedAt = -1;
  private v3 = new Map<string, { document: JsonObject; hash: string }>();
  private v2: JsonObject = {};

  constructor(private readonly registry: ResourceRegistry) {}

  private refresh(): void {
    if (this.cachedAt === this.registry.generation) return;
    this.cachedAt = this.registry.generation;
    const byGroupVersion = new Map<string, ResourceDef[]>();
    for (const resource of this.registry.all()) {
      const key = gvPath(resource.group, resource.version);
      byGroupVersion.set(key, [...(byGroupVersion.get(key) ?? []), resource]);
    }
    this.v3 = new Map(
      [...byGroupVersion].map(([path, resources]) => {
        const document: JsonObject = {
          openapi: '3.0.0',
          info: { title: 'Kubernetes', version: GIT_VERSION },
          paths: Object.assign({}, ...resources.map(pathsOf)) as JsonObject,
          components: { schemas: definitionsOf(resources, '#/components/schemas/') },
        };
        const hash = createHash('sha512').update(JSON.stringify(document)).digest('hex').slice(0, 128).toUpperCase();
        return [path, { document, hash }];
      }),
    );
    this.v2 = {
      swagger: '2.0',
      info: { title: 'Kubernetes', version: GIT_VERSION },
      paths: {},
      definitions: definitionsOf(this.registry.all(), '#/definitions/', true),
    };
  }

  /** `/openapi/v3`: where each group version's document is. */
  index(): JsonObject {
    this.refresh();
    const paths: JsonObject = {};
    for (const [path, { hash }] of this.v3) paths[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${hash}` };
    return { paths };
  }

  groupVersion(group: string, version: string): JsonObject | undefined {
    this.refresh();
    return this.v3.get(gvPath(group, version))?.document;
  }

  swagger(): JsonObject {
    this.refresh();
    return this.v2;
  }
}
