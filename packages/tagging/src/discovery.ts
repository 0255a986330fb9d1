import { TaggingApi } from './aws/tagging-api.js';
import type { CallContext } from './batch/call-context.js';

export interface DiscoveryRequest {
  /** The name in the cluster's ownership tags. */
  clusterName: string;
  /** spec.region, then spec.tagging.extraRegions. */
  regions: readonly string[];
  /** Also find resources whose ownership tag says `shared`. Default false. */
  includeShared?: boolean;
  /** When the cluster's work was asked for (`ReconcileTagsInput.askedAt`). */
  askedAt?: number;
  /** Clusters of these credentials yet to reach their writes, per region (`ReconcileTagsInput.expectedClusters`). */
  expected?: () => number;
}

export interface DiscoveredResources {
  /** ARN -> the resource's tags, as GetResources reported them. */
  resources: Record<string, Record<string, string>>;
  /** ARN -> the region the resource was found in (the region of calls about it). */
  regions: Record<string, string>;
}

/**
 * Finds a cluster's resources: in each region, one GetResources query per filter of
 * `ownershipFilters` (`sigs.k8s.io/cluster-api-provider-aws/cluster/<name>` and
 * `kubernetes.io/cluster/<name>` with value `owned`, `elbv2.k8s.aws/cluster` with value `<name>`),
 * every page of each, merged by ARN; or, when enough clusters of the same credentials want
 * theirs, one scan of the region they share (`SharedDiscovery`). A
 * resource found in two regions (an ARN without a region) belongs to the first. GetResources may list
 * resources that were deleted since: they are found here, and the writes report them as gone. Throws
 * `AwsCallError` (`TaggingAccessDeniedError` when refused) when a query keeps failing.
 */
export async function discoverResources(context: CallContext, request: DiscoveryRequest): Promise<DiscoveredResources> {
  const values = request.includeShared === true ? ['owned', 'shared'] : ['owned'];
  const { clusterName, askedAt, expected } = request;
  const found = await Promise.all(
    request.regions.map(async (region) => {
      const api = new TaggingApi(context, region);
      const scope = context.batchers.scope(context.session, region);
      return {
        region,
        mappings: await context.batchers.discovery.find(scope, api, context, {
          clusterName,
          values,
          askedAt,
          expected,
        }),
      };
    }),
  );
  const resources = new Map<string, Record<string, string>>();
  const regions = new Map<string, string>();
  for (const { region, mappings } of found) {
    for (const { arn, tags } of mappings) {
      if (resources.has(arn)) continue;
      resources.set(arn, tags);
      regions.set(arn, region);
    }
  }
  return { resources: Object.fromEntries(resources), regions: Object.fromEntries(regions) };
}
