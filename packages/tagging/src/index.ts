export {
  TaggingError,
  InvalidTagsError,
  TagLimitError,
  TaggingInputError,
  AwsCallError,
  TaggingAccessDeniedError,
  ClusterNameClaimedError,
  type AwsCallSite,
} from './errors.js';
export {
  TAG_RULE_CODES,
  type LayerClaim,
  type LayerName,
  type TagOrigin,
  type TagProblem,
  type TagRule,
} from './problems.js';
export { DEFAULT_RESERVED_KEYS, type ReservedKeys } from './reserved-keys.js';
export { SERVICE_TAG_RULES, type ServiceTagRules } from './service-rules.js';
export {
  assertValidTags,
  countUserTags,
  isAwsKey,
  validateTag,
  validateTags,
  type CheckedTags,
  type TagValidationOptions,
} from './validate.js';
export { isOwnershipKey, ownersOf, ownershipOf, type Ownership } from './ownership.js';
export type { ClaimCheck, ClaimVerdict } from './claim.js';
export { LAYERS, fingerprint, resourceDigest, ResourceMemory, type ResourcePrints } from './memory.js';
export { ClusterMemory } from './cluster-memory.js';
export { LEGACY_CLAIM_KEY, LEGACY_KEYS, LEGACY_MEMORY_KEYS, isKeymasterKey, legacyClaimOf } from './legacy.js';
export {
  CLUSTER_API_CONFLICT_FIX,
  DEFAULT_LAYER_GRACE_PERIOD_MS,
  describeObject,
  standingLayers,
  tagLayers,
  type AWSIdentity,
  type LayerObjects,
  type TagPolicies,
  type TagLayer,
} from './layers.js';
export { clusterLabels, isSelectedPolicy, policySelects, selectedPolicies, tagPoliciesOf } from './selection.js';
export { effectiveValues, resolveEffectiveTags, type EffectiveTags } from './effective.js';
export { parseCustomTags, type ParsedCustomTags } from './custom-tags.js';
export { arnRegion } from './arn.js';
export { planTags, type PlanInput } from './plan/plan.js';
export type {
  RemovalPolicy,
  ResourceConflict,
  ResourceOutcome,
  ResourcePlan,
  SkipReason,
  TagPlan,
  TagUpdate,
  TagWrite,
  UpdateReason,
} from './plan/types.js';
export { summarizePlan, type PlanSummary } from './plan/summary.js';
export { planChanges } from './plan/changes.js';
export { formatPlan, type FormatOptions } from './plan/format.js';
export { batchPlan, MAX_ARNS_PER_CALL, type PlanBatches, type TagBatch, type UntagBatch } from './plan/batches.js';
export { tagSpecifications, type Ec2TagSpecification, type TagSpecificationOptions } from './tag-specifications.js';
export { reconcileTags, DEFAULT_CONCURRENCY, type ReconcileTagsInput, type TagReconcileResult } from './reconcile.js';
export type { DiscoveredResources } from './discovery.js';
export { packKnown, packedKnownBytes, unpackKnown, type PackedKnown } from './known-resources.js';
export type { TaggingSession } from './aws/region-api.js';
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './aws/retry.js';
export type { FailureKind } from './aws/codes.js';
export type { GoneResource, TagFailure, WriteAction } from './apply/types.js';
export { TAGGERS, Taggers } from './apply/taggers/registry.js';
export type { Tagger, TaggerKind } from './apply/taggers/tagger.js';
export type { TaggingStatus } from './report/status.js';
export type { AppliedChange, TaggingEvent } from './report/events.js';
export { systemClock, type TaggingClock } from './rate-limit/clock.js';
export {
  RateLimiter,
  DEFAULT_MIN_RATE_PER_SECOND,
  type Grant,
  type RateLimiterOptions,
  type RateLimiterStats,
} from './rate-limit/rate-limiter.js';
export { RateLimiters, type BudgetStats, type RateLimitersOptions } from './rate-limit/rate-limiters.js';
export { SessionBatchers } from './batch/session-batchers.js';
