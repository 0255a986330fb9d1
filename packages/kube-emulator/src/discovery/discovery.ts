import type { ResourceRegistry } from '../resources/registry.js';
import { apiVersionOf, VERBS, type ResourceDef } from '../resources/types.js';
import type { JsonObject } from '../util/json.js';

const SUBRESOURCE_VERBS = ['get', 'patch', 'update'];

/** A subresource as discovery lists it; `kind` when it takes and answers another kind than its resource. */
interface Subresource {
  name: string;
  verbs: string[];
  kind?: { group: string; version: string; kind: string };
}

const TOKEN_REQUEST = { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' };

const subresourcesOf = (resource: ResourceDef): Subresource[] => {
  const core = resource.group === '';
  return [
    ...(resource.statusSubresource ? [{ name: 'status', verbs: SUBRESOURCE_VERBS }] : []),
    ...(core && resource.kind === 'Namespace' ? [{ name: 'finalize', verbs: ['update'] }] : []),
    ...(core && resource.kind === 'ServiceAccount' ? [{ name: 'token', verbs: ['create'], kind: TOKEN_REQUEST }] : []),
  ];
};

/** Groups and their versions in the order discovery lists them: core first, then by first appearance. */
function groupsOf(registry: ResourceRegistry): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const resource of registry.all()) {
    const versions = groups.get(resource.group) ?? [];
    if (!versions.includes(resource.version)) versions.push(resource.version);
    groups.set(resource.group, versions);
  }
  return groups;
}

const groupVersion = (group: string, version: string): JsonObject => ({
  groupVersion: group ? `${group}/${version}` : version,
  version,
});

export function coreVersions(): JsonObject {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] };
}

function apiGroup(name: string, versions: string[]): JsonObject {
  return {
    name,
    versions: versions.map((version) => groupVersion(name, version)),
    preferredVersion: groupVersion(name, versions[0]!),
  };
}

export function groupList(registry: ResourceRegistry): JsonObject {
  const groups = [...groupsOf(registry)].filter(([name]) => name !== '');
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: groups.map(([name, versions]) => apiGroup(name, versions)) };
}

export function group(registry: ResourceRegistry, name: string): JsonObject | undefined {
  const versions = groupsOf(registry).get(name);
  return versions && name !== '' ? { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(name, versions) } : undefined;
}

/** The legacy discovery document of one group version (APIResourceList). */
export function resourceList(registry: ResourceRegistry, group: string, version: string): JsonObject | undefined {
  const resources = registry.all().filter((resource) => resource.group === group && resource.version === version);
  if (resources.length === 0) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: apiVersionOf({ group, version }),
    resources: resources.flatMap((resource) => [
      {
        name: resource.plural,
        singularName: resource.singular,
        namespaced: resource.namespaced,
        kind: resource.kind,
        verbs: resource.verbs ?? VERBS,
        ...(resource.shortNames.length > 0 ? { shortNames: resource.shortNames } : {}),
        ...(resource.categories.length > 0 ? { categories: resource.categories } : {}),
      },
      ...subresourcesOf(resource).map(({ name, verbs, kind }) => ({
        name: `${resource.plural}/${name}`,
        singularName: '',
        namespaced: resource.namespaced,
        ...(kind ? { group: kind.group, version: kind.version } : {}),
        kind: kind?.kind ?? resource.kind,
        verbs,
      })),
    ]),
  };
}

function discoveredResource(resource: ResourceDef): JsonObject {
  const responseKind = { group: resource.group, version: resource.version, kind: resource.kind };
  return {
    resource: resource.plural,
    responseKind,
    scope: resource.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: resource.singular,
    verbs: resource.verbs ?? VERBS,
    ...(resource.shortNames.length > 0 ? { shortNames: resource.shortNames } : {}),
    ...(resource.categories.length > 0 ? { categories: resource.categories } : {}),
    ...(subresourcesOf(resource).length > 0
      ? {
          subresources: subresourcesOf(resource).map(({ name, verbs, kind }) => ({
            subresource: name,
            responseKind: kind ?? responseKind,
            verbs,
          })),
        }
      : {}),
  };
}

/** Aggregated discovery (APIGroupDiscoveryList) of the core group (`/api`) or of all others (`/apis`). */
export function aggregatedDiscovery(
  registry: ResourceRegistry,
  core: boolean,
  apiVersion: 'v2' | 'v2beta1',
): JsonObject {
  const groups = [...groupsOf(registry)].filter(([name]) => (name === '') === core);
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion: `apidiscovery.k8s.io/${apiVersion}`,
    metadata: {},
    items: groups.map(([name, versions]) => ({
      metadata: { name, creationTimestamp: null },
      versions: versions.map((version) => ({
        version,
        resources: registry
          .all()
          .filter((resource) => resource.group === name && resource.version === version)
          .map(discoveredResource),
        freshness: 'Current',
      })),
    })),
  };
}
