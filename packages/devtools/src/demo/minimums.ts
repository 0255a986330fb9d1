import type { ApiFamily, AWSCredentialsRequestSpec, IdentityReference } from '@keymaster/api';
import { ownersOf, TAGGERS } from '@keymaster/tagging';
import type { Manifest } from '@keymaster/testenv';

const CONTROLLER_IDENTITY: IdentityReference = { kind: 'AWSClusterControllerIdentity', name: 'default' };

export interface StsMinimum {
  /** One per role identity some chain passes through (each session made once, shared), and per narrowed session. */
  assumeRole: number;
  /** One per credential set that clusters use directly (the account is asked once per set). */
  getCallerIdentity: number;
}

/**
 * The fewest STS calls that give these clusters, and these AWSCredentialsRequests, their credentials,
 * counted from the objects themselves: walk each chain (identityRef, then each role's
 * sourceIdentityRef, which defaults to the controller identity) and count the distinct role links and
 * the distinct credential sets asked who they are. A request in Session mode adds its own narrowed
 * session (one per namespace, identity and session policy; its sources are shared with clusters); one
 * in WebIdentity mode asks who its web identity is, once per namespace.
 */
export function minimumStsCalls(
  objects: readonly Manifest[],
  clusters: readonly { namespace: string; name: string }[],
  requests: readonly { namespace: string; name: string }[] = [],
): StsMinimum {
  const byKey = new Map(
    objects.map((object) => [`${object.kind}/${object.metadata.namespace ?? ''}/${object.metadata.name}`, object]),
  );
  const spec = (kind: string, namespace: string, name: string) => byKey.get(`${kind}/${namespace}/${name}`)?.spec;
  const roles = new Set<string>();
  const own = new Set<string>();
  const narrowed = new Set<string>();
  const walk = (start: IdentityReference | undefined) => {
    let ref = start ?? CONTROLLER_IDENTITY;
    while (ref.kind === 'AWSClusterRoleIdentity' && !roles.has(ref.name)) {
      roles.add(ref.name);
      ref =
        (spec(ref.kind, '', ref.name)?.['sourceIdentityRef'] as IdentityReference | undefined) ?? CONTROLLER_IDENTITY;
    }
  };
  for (const { namespace, name } of clusters) {
    const ref =
      (spec('AWSCluster', namespace, name)?.['identityRef'] as IdentityReference | undefined) ?? CONTROLLER_IDENTITY;
    own.add(`${ref.kind}/${ref.name}`);
    walk(ref);
  }
  for (const { namespace, name } of requests) {
    const request = spec('AWSCredentialsRequest', namespace, name) as Partial<AWSCredentialsRequestSpec> | undefined;
    if (!request?.identityRef) continue;
    const { identityRef, statements, policyARNs, durationSeconds, mode } = request;
    if (mode === 'WebIdentity') {
      own.add(`${identityRef.kind}/${identityRef.name}/${namespace}`);
      continue;
    }
    narrowed.add(
      JSON.stringify([namespace, identityRef, statements, [...(policyARNs ?? [])].sort(), durationSeconds ?? 3600]),
    );
    walk(spec(identityRef.kind, '', identityRef.name)?.['sourceIdentityRef'] as IdentityReference | undefined);
  }
  return { assumeRole: roles.size + narrowed.size, getCallerIdentity: own.size + narrowed.size };
}

/** An AWS resource and its tags. */
export interface TaggedResource {
  arn: string;
  tags: Record<string, string>;
}

/** What changed on AWS between two snapshots, and the fewest tag writes that make that change. */
export interface TagChange {
  /** Resources whose tags differ. */
  resources: number;
  /** TagResources and UntagResources calls, at least. */
  minimumCalls: number;
}

/** Resources of one scope with the same change, written by one tagger: `capacity` a call, from the budget of `family`. */
export interface ChangeGroup {
  scope: string;
  resources: number;
  capacity: number;
  family: ApiFamily;
}

/**
 * The resources `after` changes from `before`, grouped by `scope`, the API that writes them (their
 * tagger: EC2's CreateTags for EC2's, the Resource Groups Tagging API for the rest) and identical
 * change (the tags set, or the keys removed): one group is what one write may carry, `capacity`
 * resources at a time.
 */
export function tagChangeGroups(
  before: readonly TaggedResource[],
  after: readonly TaggedResource[],
  scopeOf: (arn: string, tags: Record<string, string>) => string,
): { resources: number; groups: ChangeGroup[] } {
  const previous = new Map(before.map(({ arn, tags }) => [arn, tags]));
  const groups = new Map<string, ChangeGroup>();
  const count = (scope: string, arn: string, change: string) => {
    const tagger = TAGGERS.of(arn);
    const key = `${scope}\0${tagger.name}\0${change}`;
    const group = groups.get(key) ?? {
      scope,
      resources: 0,
      capacity: tagger.writeCapacity,
      family: tagger.writeFamily,
    };
    group.resources++;
    groups.set(key, group);
  };
  let resources = 0;
  for (const { arn, tags } of after) {
    const old = previous.get(arn) ?? {};
    const set = Object.keys(tags)
      .filter((key) => old[key] !== tags[key])
      .sort()
      .map((key) => [key, tags[key]]);
    const removed = Object.keys(old)
      .filter((key) => !(key in tags))
      .sort();
    if (set.length === 0 && removed.length === 0) continue;
    resources++;
    const scope = scopeOf(arn, tags);
    if (set.length > 0) count(scope, arn, `set ${JSON.stringify(set)}`);
    if (removed.length > 0) count(scope, arn, `remove ${JSON.stringify(removed)}`);
  }
  return { resources, groups: [...groups.values()] };
}

/** Writes for a group of resources of one identical change: at most `capacity` a call (20 ARNs, or EC2's 1,000 IDs). */
export const writesFor = ({ resources, capacity }: { resources: number; capacity: number }): number =>
  Math.ceil(resources / capacity);

/**
 * The identity each cluster name's AWSCluster acts with (`kind/name`; the controller identity by
 * default): clusters of one identity act with one credential set, so they may share a write.
 */
export function clusterIdentities(objects: readonly Manifest[]): Map<string, string> {
  return new Map(
    objects
      .filter(({ kind }) => kind === 'AWSCluster')
      .map(({ metadata, spec }) => {
        const ref = (spec?.['identityRef'] as IdentityReference | undefined) ?? CONTROLLER_IDENTITY;
        return [(spec?.['clusterName'] as string | undefined) ?? metadata.name, `${ref.kind}/${ref.name}`];
      }),
  );
}

/**
 * The fewest tag writes that turn `before` into `after` for a controller that tags each cluster with
 * its own credentials: a write covers one account and region, one credential set (`identityOf` the
 * clusters owning the resource; clusters of one identity may share a write, since Keymaster's writes
 * carry nothing of a cluster's own), one set of tags (or of removed keys), and at most 20 resources (EC2's: 1,000).
 */
export function minimumTagWrites(
  before: readonly TaggedResource[],
  after: readonly TaggedResource[],
  identityOf: (clusterName: string) => string | undefined,
): TagChange {
  const { resources, groups } = tagChangeGroups(before, after, (arn, tags) => {
    const [, , , region, account] = arn.split(':');
    return JSON.stringify([account, region, ownersOf(tags).map(identityOf)]);
  });
  const minimumCalls = groups.reduce((sum, group) => sum + writesFor(group), 0);
  return { resources, minimumCalls };
}
