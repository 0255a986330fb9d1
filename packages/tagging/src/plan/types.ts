import type { ClusterTagging, TagConflict, TagSource } from '@keymaster/api';
import type { ResourcePrints } from '../memory.js';
import type { LayerClaim, TagProblem } from '../problems.js';

/** What happens to a key that no layer sets any more (spec.tagging.removalPolicy). */
export type RemovalPolicy = NonNullable<ClusterTagging['removalPolicy']>;

/** What the plan does with one resource. */
export type ResourceOutcome = 'InSync' | 'Change' | 'OverLimit' | 'Skip';

/** Why a resource is left alone. */
export type SkipReason = 'NotOwned' | 'Shared' | 'InvalidArn' | 'UnknownRegion';

/**
 * Why a managed key's live value differs from the effective one. `PolicyChanged`: the layers changed
 * the value; `Drift`: the value was edited outside Keymaster; `Adopted`: Keymaster did not manage the
 * key on this cluster before and takes it over.
 */
export type UpdateReason = 'PolicyChanged' | 'Drift' | 'Adopted';

export interface TagWrite {
  key: string;
  value: string;
}

export interface TagUpdate {
  key: string;
  from: string;
  to: string;
  reason: UpdateReason;
}

/**
 * A key that Keymaster applied before and no layer sets any more, whose live value is no longer the
 * one Keymaster applied: under the Delete policy it is left in place, as someone else now owns it.
 */
export interface ResourceConflict {
  key: string;
  live: string;
  applied: string;
}

export interface ResourcePlan {
  arn: string;
  /** The region the calls for this resource go to; absent when the resource is skipped for lack of one. */
  region?: string;
  outcome: ResourceOutcome;
  add: TagWrite[];
  update: TagUpdate[];
  remove: TagWrite[];
  conflicts: ResourceConflict[];
  /**
   * The bookkeeping tags of releases up to 0.2.0 to remove with the changes, once their memory is
   * converted into the ledger (`PlanInput.convertLegacy`); absent when there are none.
   */
  legacyTags?: string[];
  /** What Keymaster will remember of the resource once the writes are made: the fingerprints per layer. */
  memory?: ResourcePrints;
  /** Set when the adds would take the resource over AWS's limit: they are withheld, updates and removals go on. */
  overLimit?: { limit: number; userTags: number; withheld: TagWrite[] };
  skip?: { reason: SkipReason; message: string };
}

/** The dry run of one cluster's tagging: plain JSON, the same before and after a JSON round trip. */
export interface TagPlan {
  clusterName: string;
  removalPolicy: RemovalPolicy;
  includeShared: boolean;
  /** The effective tags Keymaster manages, with their provenance, keys sorted. */
  tags: Record<string, LayerClaim>;
  /** The keys CAPA holds (the ClusterAPI layer), with CAPA's claim: never written nor removed, keys sorted. */
  held: Record<string, TagSource>;
  /** Keys that layers set to different values (fits status.tagging.conflicts). */
  conflicts: TagConflict[];
  /** Tags left out of the effective tags, with their origin and the rule they break. */
  problems: TagProblem[];
  /** One entry per resource, in ARN order. */
  resources: ResourcePlan[];
  /**
   * Keys under keymaster.dev/ found on the resources that Keymaster does not convert: it writes no tag
   * of its own, so they are someone else's; ignored, never removed. Sorted.
   */
  ignoredBookkeepingKeys: string[];
}
