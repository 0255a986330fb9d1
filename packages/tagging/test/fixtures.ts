import {
  API_VERSION,
  ownershipTagKeys,
  type AWSCluster,
  type AWSClusterRoleIdentity,
  type AWSClusterStaticIdentity,
  type AWSTagPolicy,
  type ResourceTag,
} from '@keymaster/api';
import {
  ClusterMemory,
  fingerprint,
  LEGACY_MEMORY_KEYS,
  planTags,
  ResourceMemory,
  resolveEffectiveTags,
  tagLayers,
  type LayerName,
  type RemovalPolicy,
  type TagPlan,
  type TagValidationOptions,
} from '../src/index.js';

export const CLUSTER = 'analytics-dev';

export const policy = (resourceTags: ResourceTag[]): AWSTagPolicy => ({
  apiVersion: API_VERSION,
  kind: 'AWSTagPolicy',
  metadata: { name: 'default' },
  spec: { resourceTags },
});

/** An AWSTagPolicy other than `default`: a selected layer. */
export const selectedPolicy = (
  name: string,
  selectors: Pick<AWSTagPolicy['spec'], 'clusterSelector' | 'namespaceSelector'>,
  resourceTags: ResourceTag[],
  precedence?: number,
): AWSTagPolicy => ({
  apiVersion: API_VERSION,
  kind: 'AWSTagPolicy',
  metadata: { name },
  spec: { ...selectors, resourceTags, ...(precedence === undefined ? {} : { precedence }) },
});

export const roleIdentity = (name: string, resourceTags: ResourceTag[]): AWSClusterRoleIdentity => ({
  apiVersion: API_VERSION,
  kind: 'AWSClusterRoleIdentity',
  metadata: { name },
  spec: { roleARN: `arn:aws:iam::333333333333:role/${name}`, resourceTags },
});

export const staticIdentity = (name: string, resourceTags: ResourceTag[]): AWSClusterStaticIdentity => ({
  apiVersion: API_VERSION,
  kind: 'AWSClusterStaticIdentity',
  metadata: { name },
  spec: { secretRef: `${name}-keys`, resourceTags },
});

export const cluster = (additionalTags: Record<string, string>, labels?: Record<string, string>): AWSCluster => ({
  apiVersion: API_VERSION,
  kind: 'AWSCluster',
  metadata: { name: CLUSTER, namespace: 'tenant-b', ...(labels ? { labels } : {}) },
  spec: { region: 'eu-west-1', additionalTags },
});

/** The object names provenance uses for the fixtures above. */
export const POLICY = 'AWSTagPolicy/default';
export const CLUSTER_OBJECT = `AWSCluster tenant-b/${CLUSTER}`;

/** The ownership tags discovery finds on a resource of the cluster. */
export const owned = (value: 'owned' | 'shared' = 'owned', clusterName = CLUSTER): Record<string, string> =>
  Object.fromEntries(ownershipTagKeys(clusterName).map((key) => [key, value]));

export const instanceArn = (id: string, region = 'eu-west-1') => `arn:aws:ec2:${region}:111122223333:instance/${id}`;

/** A plan for the fixture cluster with global tags `global` and cluster tags `clusterTags`. */
export function planFor(input: {
  global?: ResourceTag[];
  clusterTags?: Record<string, string>;
  resources: Record<string, Record<string, string>>;
  managedTags?: Record<string, string>;
  removalPolicy?: RemovalPolicy;
  includeShared?: boolean;
  regions?: Record<string, string>;
  validation?: TagValidationOptions;
  standingLayers?: LayerName[];
  memory?: ClusterMemory;
  convertLegacy?: boolean;
}): TagPlan {
  const layers = tagLayers({
    policy: policy(input.global ?? []),
    identities: [],
    cluster: cluster(input.clusterTags ?? {}),
  });
  const { resources, managedTags, removalPolicy, includeShared, regions, standingLayers, memory, convertLegacy } =
    input;
  const effective = resolveEffectiveTags(layers, input.validation);
  return planTags({
    clusterName: CLUSTER,
    effective,
    resources,
    managedTags,
    removalPolicy,
    includeShared,
    regions,
    standingLayers,
    memory,
    convertLegacy,
  });
}

/** What Keymaster wrote, per resource and layer: the ledger's memory of it. */
export function memoryOf(written: Record<string, Partial<Record<LayerName, Record<string, string>>>>): ClusterMemory {
  const memory = new ClusterMemory();
  for (const [arn, layers] of Object.entries(written)) {
    const remembered = new ResourceMemory();
    for (const [layer, tags] of Object.entries(layers))
      for (const [key, value] of Object.entries(tags)) remembered.write(layer as LayerName, key, value);
    memory.set(arn, remembered);
  }
  return memory;
}

/** The legacy memory tag of a resource on which a release up to 0.2.0 wrote `tags` from `layer`. */
export const legacyRemembered = (
  layer: keyof typeof LEGACY_MEMORY_KEYS,
  tags: Record<string, string>,
): Record<string, string> => ({
  [LEGACY_MEMORY_KEYS[layer]]: Object.entries(tags)
    .map(([key, value]) => fingerprint(key, value).slice(0, 4))
    .sort()
    .join(''),
});
