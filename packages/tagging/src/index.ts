export { TaggingError, InvalidTagsError, TagLimitError, TaggingInputError } from './errors.js';
export { TAG_RULE_CODES, type LayerName, type TagOrigin, type TagProblem, type TagRule } from './problems.js';
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
export { isOwnershipKey, ownershipOf, type Ownership } from './ownership.js';
export { describeObject, tagLayers, type AWSIdentity, type LayerObjects, type TagLayer } from './layers.js';
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
export { formatPlan, type FormatOptions } from './plan/format.js';
export { batchPlan, MAX_ARNS_PER_CALL, type PlanBatches, type TagBatch, type UntagBatch } from './plan/batches.js';
export { tagSpecifications, type Ec2TagSpecification, type TagSpecificationOptions } from './tag-specifications.js';
