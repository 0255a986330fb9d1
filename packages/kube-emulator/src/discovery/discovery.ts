import type { ResourceRegistry } from '../resources/registry.js';
import { apiVersionOf, VERBS, type ResourceDef } from '../resources/types.js';
import { isObject, text, type JsonObject } from '../util/json.js';
import { byVersionPriority } from './version-priority.js';

const SUBRESOURCE_VERBS = ['get', 'patch', 'update'];

/** A subresource as discovery lists it; `kind` when it takes and answers another kind than its resource. */
interface Subresource {
  name: string;
  verbs: string[];
  kind?: { group: string; version: string; kind: string };
}

const TOKEN_REQUEST = { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' };

/** A resource's subresources by name, as kube-apiserver lists them. */
const subresourcesOf = (resource: ResourceDef): Subresource[] => {
  const core = resource.group === '';
  return [
    ...(core && resource.kind === 'Namespace' ? [{ name: 'finalize', verbs: ['update'] }] : []),
    ...(resource.statusSubresource ? [{ name: 'status', verbs: SUBRESOURCE_VERBS }] : []),
    ...(core && resource.kind === 'ServiceAccount' ? [{ name: 'token', verbs: ['create'], kind: TOKEN_REQUEST }] : []),
  ];
};

/**
 * The order kube-apiserver 1.37 lists its built-in groups in (their group priorities); custom groups
 * (priority 1000, below all of these) follow by name.
 */
const GROUP_ORDER = [
  'apiregistration.k8s.io',
  'apps',
  'events.k8s.io',
  'authentication.k8s.io',
  'authorization.k8s.io',
  'autoscaling',
  'batch',
  'certificates.k8s.io',
  'networking.k8s.io',
  'policy',
  'rbac.authorization.k8s.io',
  'storage.k8s.io',
  'admissionregistration.k8s.io',
  'apiextensions.k8s.io',
  'scheduling.k8s.io',
  'coordination.k8s.io',
  'node.k8s.io',
  'discovery.k8s.io',
  'flowcontrol.apiserver.k8s.io',
];

const groupRank = (name: string): number => {
  const rank = GROUP_ORDER.indexOf(name);
  return name === '' ? -1 : rank === -1 ? GROUP_ORDER.length : rank;
};

/** A group version an APIService hands to an aggregated server, and the APIResourceList it last served. */
export interface RemoteVersion {
  group: string;
  version: string;
  resources: JsonObject | undefined;
}

/**
 * Groups and their versions in the order discovery lists them: core, the built-in groups, the others
 * (custom resources' and aggregated servers') by name.
 */
function groupsOf(registry: ResourceRegistry, remote: RemoteVersion[]): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const resource of [...registry.all(), ...remote]) {
    const versions = groups.get(resource.group) ?? [];
    if (!versions.includes(resource.version)) versions.push(resource.version);
    groups.set(resource.group, versions);
  }
  for (const versions of groups.values()) versions.sort(byVersionPriority);
  return new Map([...groups].sort(([a], [b]) => groupRank(a) - groupRank(b) || (a < b ? -1 : a > b ? 1 : 0)));
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

export function groupList(registry: ResourceRegistry, remote: RemoteVersion[]): JsonObject {
  const groups = [...groupsOf(registry, remote)].filter(([name]) => name !== '');
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: groups.map(([name, versions]) => apiGroup(name, versions)) };
}

export function group(registry: ResourceRegistry, remote: RemoteVersion[], name: string): JsonObject | undefined {
  const versions = groupsOf(registry, remote).get(name);
  return versions && name !== '' ? { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(name, versions) } : undefined;
}

/** The legacy discovery document of one group version (APIResourceList). */
export function resourceList(registry: ResourceRegistry, group: string, version: string): JsonObject | undefined {
  const resources = registry
    .all()
    .filter((resource) => resource.group === group && resource.version === version)
    .sort((a, b) => (a.plural < b.plural ? -1 : a.plural > b.plural ? 1 : 0));
  if (resources.length === 0) return undefined;
  return {
    kind: 'APIResourceList',
    // kube-apiserver leaves apiVersion out of the core group's list (/api/v1), not out of the others.
    ...(group === '' ? {} : { apiVersion: 'v1' }),
    groupVersion: apiVersionOf({ group, version }),
    resources: resources.flatMap((resource) => [
      {
        name: resource.plural,
        singularName: resource.singular,
        namespaced: resource.namespaced,
        kind: resource.kind,
        verbs: verbsOf(resource),
        ...(resource.shortNames.length > 0 ? { shortNames: resource.shortNames } : {}),
        ...(resource.categories.length > 0 ? { categories: resource.categories } : {}),
        ...(resource.storageVersionHash ? { storageVersionHash: resource.storageVersionHash } : {}),
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

/** Custom resources' verbs are listed in the order kube-apiserver's CRD handler gives them. */
const CUSTOM_RESOURCE_VERBS = ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'];

const verbsOf = (resource: ResourceDef): string[] =>
  resource.verbs ?? (resource.crdName === undefined ? VERBS : CUSTOM_RESOURCE_VERBS);

function discoveredResource(resource: ResourceDef): JsonObject {
  // Aggregated discovery of the core group leaves the version of its kinds empty.
  const responseKind = {
    group: resource.group,
    version: resource.group === '' ? '' : resource.version,
    kind: resource.kind,
  };
  return {
    resource: resource.plural,
    responseKind,
    scope: resource.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: resource.singular,
    verbs: verbsOf(resource),
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

/**
 * An aggregated server's APIResourceList in aggregated discovery's words, as kube-aggregator converts
 * it: its resources, each with the subresources listed as `plural/subresource`.
 */
function remoteVersion({ version, resources }: RemoteVersion): JsonObject {
  const listed = (Array.isArray(resources?.resources) ? resources.resources : []).filter(isObject);
  const nameOf = (entry: JsonObject): string => text(entry.name);
  // kube-aggregator copies a resource's group and version as listed: empty unless the list names them.
  const kindOf = (entry: JsonObject): JsonObject => ({
    group: typeof entry.group === 'string' ? entry.group : '',
    version: typeof entry.version === 'string' ? entry.version : '',
    kind: entry.kind ?? '',
  });
  const top = listed.filter((entry) => !nameOf(entry).includes('/'));
  return {
    version,
    resources: top.map((entry) => {
      const subresources = listed
        .filter((sub) => nameOf(sub).startsWith(`${nameOf(entry)}/`))
        .map((sub): JsonObject => ({
          subresource: nameOf(sub).split('/')[1]!,
          responseKind: kindOf(sub),
          verbs: sub.verbs ?? [],
        }));
      const discovered: JsonObject = {
        resource: entry.name ?? '',
        responseKind: kindOf(entry),
        scope: entry.namespaced ? 'Namespaced' : 'Cluster',
        singularResource: entry.singularName ?? '',
        verbs: entry.verbs ?? [],
        ...(Array.isArray(entry.shortNames) ? { shortNames: entry.shortNames } : {}),
        ...(Array.isArray(entry.categories) ? { categories: entry.categories } : {}),
        ...(subresources.length > 0 ? { subresources } : {}),
      };
      return discovered;
    }),
    // An aggregated server not (yet) discovered is listed as stale, as kube-aggregator does.
    freshness: resources ? 'Current' : 'Stale',
  };
}

/** Aggregated discovery (APIGroupDiscoveryList) of the core group (`/api`) or of all others (`/apis`). */
export function aggregatedDiscovery(
  registry: ResourceRegistry,
  remote: RemoteVersion[],
  core: boolean,
  apiVersion: 'v2' | 'v2beta1',
): JsonObject {
  const groups = [...groupsOf(registry, remote)].filter(([name]) => (name === '') === core);
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion: `apidiscovery.k8s.io/${apiVersion}`,
    metadata: {},
    items: groups.map(([name, versions]) => ({
      metadata: { name },
      versions: versions.map((version) => {
        const served = remote.find((entry) => entry.group === name && entry.version === version);
        if (served) return remoteVersion(served);
        return {
          version,
          resources: registry
            .all()
            .filter((resource) => resource.group === name && resource.version === version)
            .sort((a, b) => (a.plural < b.plural ? -1 : a.plural > b.plural ? 1 : 0))
            .map(discoveredResource),
          freshness: 'Current',
        };
      }),
    })),
  };
}
