/**
 * Every difference between the aws-emulator and moto that the corpus shows, step by step (a write one
 * side refused makes the read after it differ too), with the side that departs from AWS's documented
 * behaviour and why. The fidelity test fails on a difference missing here, and on an entry here that
 * no longer differs or whose outcomes changed: the list stays exact.
 */

/** Who departs from AWS: moto, the aws-emulator, or neither provably (AWS documents the code, not the words). */
export type Deviation = 'moto' | 'aws-emulator' | 'wording';

export interface Explanation {
  sequence: string;
  step: string;
  /** What each side answered: an error code, or `ok`. */
  outcomes: { awsEmulator: string; moto: string };
  deviates: Deviation;
  reason: string;
}

type Entry = [sequence: string, step: string, awsEmulator: string, moto: string];

const explain = (deviates: Deviation, reason: string, ...entries: Entry[]): Explanation[] =>
  entries.map(([sequence, step, awsEmulator, moto]) => ({
    sequence,
    step,
    outcomes: { awsEmulator, moto },
    deviates,
    reason,
  }));

const STS = 'STS API reference, AssumeRole';
const TAGGING = 'Resource Groups Tagging API reference';
const EC2 = 'EC2 API reference';

export const EXPLAINED: readonly Explanation[] = [
  ...explain(
    'moto',
    'moto makes IAM user IDs of 20 lower-case letters and digits; AWS user IDs start with AIDA (IAM User Guide, unique identifiers).',
    ['sts/get-caller-identity', 'GetCallerIdentity', 'ok', 'ok'],
  ),
  ...explain(
    'moto',
    `moto answers PackedPolicySize (always 6, the value of the ${STS} example) when no session policy or tag was passed; AWS answers it only for those (the AWS CLI's assume-role example has none).`,
    ['sts/assume-role-then-act-as-the-session', 'AssumeRole', 'ok', 'ok'],
  ),
  ...explain(
    'aws-emulator',
    "the aws-emulator does not answer PackedPolicySize, AWS's share of an unpublished packed-size limit (the SDK's model deprecates it for SessionTokenUtilization, which neither side answers); an invented number would be no truer. Keymaster reads neither.",
    ['sts/assume-role-session-tags', 'AssumeRole', 'ok', 'ok'],
    ['sts/assume-role-session-policy', 'AssumeRole', 'ok', 'ok'],
  ),
  ...explain(
    'moto',
    `moto evaluates no trust policy and needs no role to exist (its AssumeRole says so); AWS refuses with 403 AccessDenied (${STS}, errors).`,
    ['sts/assume-role-wrong-external-id', 'AssumeRole', 'AccessDenied', 'ok'],
    ['sts/assume-role-without-required-external-id', 'AssumeRole', 'AccessDenied', 'ok'],
    ['sts/assume-role-of-missing-role', 'AssumeRole', 'AccessDenied', 'ok'],
  ),
  ...explain(
    'moto',
    `moto checks none of AssumeRole's parameter constraints but the session name's maximum length; AWS refuses with ValidationError: DurationSeconds 900-43200 and at most the role's MaxSessionDuration, RoleSessionName 2-64 of [\\w+=,.@-], ExternalId 2-1224, a role ARN (${STS}).`,
    ['sts/assume-role-duration-below-900', 'AssumeRole', 'ValidationError', 'ok'],
    ['sts/assume-role-duration-over-role-maximum', 'AssumeRole', 'ValidationError', 'ok'],
    ['sts/assume-role-duration-over-43200', 'AssumeRole', 'ValidationError', 'ok'],
    ['sts/assume-role-session-name-too-short', 'AssumeRole', 'ValidationError', 'ok'],
    ['sts/assume-role-session-name-bad-characters', 'AssumeRole', 'ValidationError', 'ok'],
    ['sts/assume-role-external-id-too-short', 'AssumeRole', 'ValidationError', 'ok'],
    ['sts/assume-role-arn-not-a-role', 'AssumeRole', 'ValidationError', 'ok'],
  ),
  ...explain(
    'moto',
    "moto's message reads 'less than or  equal to' (two spaces); AWS's validation messages read 'less than or equal to'.",
    ['sts/assume-role-session-name-too-long', 'AssumeRole', 'ValidationError', 'ValidationError'],
  ),
  ...explain(
    'moto',
    `moto accepts session tags under the reserved aws: prefix and a session policy that is not JSON; AWS refuses them (InvalidParameterValue, MalformedPolicyDocument: ${STS}).`,
    ['sts/assume-role-aws-session-tag', 'AssumeRole', 'InvalidParameterValue', 'ok'],
    ['sts/assume-role-malformed-session-policy', 'AssumeRole', 'MalformedPolicyDocumentException', 'ok'],
  ),
  ...explain(
    'moto',
    `moto evaluates no session policy: its sessions may do what the role may; AWS gives a session the intersection of the role's identity-based policies and the union of its session policies, and refuses the rest (IAM User Guide, session policies; ${STS}).`,
    ['sts/session-policy-narrows-the-session', 'DescribeTags as the session', 'UnauthorizedOperation', 'ok'],
  ),
  ...explain(
    'moto',
    `moto ignores PolicyArns: it checks neither their number (at most 10, else ValidationError) nor that each names a managed policy (else MalformedPolicyDocument: 'Policy <ARN> does not exist or is not attachable.') (${STS}, PolicyArns).`,
    ['sts/assume-role-unknown-policy-arn', 'AssumeRole', 'MalformedPolicyDocumentException', 'ok'],
    ['sts/assume-role-eleven-policy-arns', 'AssumeRole', 'ValidationError', 'ok'],
  ),
  ...explain(
    'moto',
    `moto has no packed-size limit; AWS refuses session policies and tags whose packed form exceeds its budget with PackedPolicyTooLarge, naming the percentage, even under the 2048-character plaintext limit (${STS}, errors). The percentage is the aws-emulator's stand-in (docs/emulators/aws-emulator.md, packed size), near AWS's figures, not equal to them.`,
    ['sts/assume-role-packed-policy-too-large', 'AssumeRole', 'PackedPolicyTooLargeException', 'ok'],
  ),
  ...explain(
    'moto',
    'moto grants a chained session more than an hour; AWS limits role chaining to one hour (IAM User Guide, role chaining).',
    ['sts/role-chain-over-one-hour', 'AssumeRole of the second for 2 hours', 'ValidationError', 'ok'],
  ),
  ...explain(
    'moto',
    'moto leaves PaginationToken out of the last page; AWS answers it empty (the SDK paginators stop on ""): a client that waits for "" pages moto forever.',
    ['tagging/get-resources-last-page-token', 'GetResources', 'ok', 'ok'],
  ),
  ...explain(
    'moto',
    `moto checks none of GetResources' documented limits: at most 50 tag filters of 20 values, 1-100 ARNs, ResourceARNList with neither filters nor pagination parameters, else InvalidParameterException (${TAGGING}, GetResources).`,
    ['tagging/get-resources-too-many-filters', 'GetResources', 'InvalidParameterException', 'ok'],
    ['tagging/get-resources-too-many-filter-values', 'GetResources', 'InvalidParameterException', 'ok'],
    ['tagging/get-resources-arn-list-and-tag-filters', 'GetResources', 'InvalidParameterException', 'ok'],
    ['tagging/get-resources-arn-list-with-resources-per-page', 'GetResources', 'InvalidParameterException', 'ok'],
    ['tagging/get-resources-arn-list-of-101', 'GetResources', 'InvalidParameterException', 'ok'],
  ),
  ...explain(
    'wording',
    'both refuse with the documented InvalidParameterException; AWS documents the range (ResourcesPerPage 1-100, TagsPerPage 100-500), not the message, and the two word it differently.',
    [
      'tagging/get-resources-resources-per-page-0',
      'GetResources',
      'InvalidParameterException',
      'InvalidParameterException',
    ],
    [
      'tagging/get-resources-resources-per-page-101',
      'GetResources',
      'InvalidParameterException',
      'InvalidParameterException',
    ],
    [
      'tagging/get-resources-tags-per-page-99',
      'GetResources',
      'InvalidParameterException',
      'InvalidParameterException',
    ],
  ),
  ...explain(
    'moto',
    `moto ends a page on reaching TagsPerPage instead of before passing it (pages of 9, 10, 3); AWS's own example, 22 resources of 10 tags at 100 tags a page, gives 10, 10, 2 (${TAGGING}, GetResources), as the aws-emulator does.`,
    ['tagging/get-resources-tags-per-page', 'GetResources 100 tags a page', 'ok', 'ok'],
  ),
  ...explain(
    'wording',
    'AWS documents PaginationTokenExpiredException for a token older than 15 minutes and InvalidParameterException for a malformed parameter, not the answer to a token it never issued: the aws-emulator answers the second, moto the first.',
    [
      'tagging/get-resources-invalid-pagination-token',
      'GetResources',
      'InvalidParameterException',
      'PaginationTokenExpiredException',
    ],
  ),
  ...explain(
    'moto',
    `moto stops listing a resource whose tags were all removed; AWS lists previously tagged resources with an empty tag set (${TAGGING}, GetResources TagFilters).`,
    ['tagging/get-resources-previously-tagged', 'GetResources', 'ok', 'ok'],
  ),
  ...explain(
    'moto',
    `moto checks no tag: it accepts keys under aws: (in any case), keys over 128 and values over 256 characters, no tags at all, and removing aws: keys; AWS refuses each with InvalidParameterException (TagKey 1-128, TagValue 0-256, Tags 1-50 in the ${TAGGING}; aws: reserved in any case).`,
    ['tagging/tag-resources-aws-prefix', 'TagResources', 'InvalidParameterException', 'ok'],
    ['tagging/tag-resources-aws-prefix', 'GetResources', 'ok', 'ok'],
    ['tagging/tag-resources-aws-prefix-upper-case', 'TagResources', 'InvalidParameterException', 'ok'],
    ['tagging/tag-resources-aws-prefix-upper-case', 'GetResources', 'ok', 'ok'],
    ['tagging/tag-resources-key-of-129', 'TagResources', 'InvalidParameterException', 'ok'],
    ['tagging/tag-resources-key-of-129', 'GetResources', 'ok', 'ok'],
    ['tagging/tag-resources-value-of-257', 'TagResources', 'InvalidParameterException', 'ok'],
    ['tagging/tag-resources-value-of-257', 'GetResources', 'ok', 'ok'],
    ['tagging/tag-resources-no-tags', 'TagResources', 'InvalidParameterException', 'ok'],
    ['tagging/untag-resources-aws-prefix', 'UntagResources', 'InvalidParameterException', 'ok'],
  ),
  ...explain(
    'moto',
    `moto checks no list length: AWS takes 1-20 ARNs, 1-50 tags and 1-50 keys a call (${TAGGING}), else InvalidParameterException; moto tags 21 ARNs, and answers 51 tags with EC2's TagLimitExceeded.`,
    ['tagging/tag-resources-51-tags', 'TagResources', 'InvalidParameterException', 'TagLimitExceeded'],
    ['tagging/tag-resources-21-arns', 'TagResources', 'InvalidParameterException', 'ok'],
    ['tagging/untag-resources-no-keys', 'UntagResources', 'InvalidParameterException', 'ok'],
    ['tagging/untag-resources-51-keys', 'UntagResources', 'InvalidParameterException', 'ok'],
    ['tagging/untag-resources-21-arns', 'UntagResources', 'InvalidParameterException', 'ok'],
  ),
  ...explain(
    'moto',
    `moto fails the whole call when one resource would pass 50 tags; AWS lists a resource it cannot tag in FailedResourcesMap, with the service's code, and the call succeeds (${TAGGING}, TagResources and FailureInfo).`,
    ['tagging/tag-resources-over-50-on-the-resource', 'TagResources of a 51st tag', 'ok', 'TagLimitExceeded'],
  ),
  ...explain(
    'moto',
    `moto answers every ARN it cannot route, malformed, missing or of another account, with its own "Service not yet supported" (InternalServiceException, status 404); AWS answers InvalidParameterException for a target that is invalid or not the caller's, and the service's own code for a resource that does not exist (${TAGGING}, InvalidParameterException and FailureInfo).`,
    ['tagging/tag-resources-invalid-arn', 'TagResources', 'InvalidParameterException', 'ok'],
    ['tagging/tag-resources-missing-volume', 'TagResources', 'ok', 'ok'],
    ['tagging/tag-resources-other-account', 'TagResources', 'ok', 'ok'],
    ['tagging/untag-resources-missing-instance', 'UntagResources', 'ok', 'ok'],
  ),
  ...explain(
    'moto',
    `moto reports success for an instance that does not exist and for an ARN of another region; AWS lists them in FailedResourcesMap (InvalidInstanceID.NotFound; "you can only tag resources in the specified Region", ${TAGGING}, TagResources).`,
    ['tagging/tag-resources-missing-instance', 'TagResources', 'ok', 'ok'],
    ['tagging/tag-resources-other-region', 'TagResources', 'ok', 'ok'],
  ),
  ...explain(
    'moto',
    `moto fails CreateTags of a tag without a value with HTTP 500 (an HTML page the SDK cannot read); EC2 makes the value empty (${EC2}, Tag).`,
    ['ec2/create-tags-without-value', 'CreateTags', 'ok', 'Error'],
    ['ec2/create-tags-without-value', 'DescribeTags of the resources', 'ok', 'ok'],
  ),
  ...explain(
    'moto',
    `moto's CreateTags and DeleteTags check no tag: it accepts aws: keys, keys over 128 and values over 256 characters, and no tags at all; EC2 refuses them (${EC2}, CreateTags and Tag: aws: is reserved, Tags is required).`,
    ['ec2/create-tags-aws-prefix', 'CreateTags', 'InvalidParameterValue', 'ok'],
    ['ec2/create-tags-aws-prefix', 'DescribeTags of the resources', 'ok', 'ok'],
    ['ec2/create-tags-key-of-129', 'CreateTags', 'InvalidParameterValue', 'ok'],
    ['ec2/create-tags-key-of-129', 'DescribeTags of the resources', 'ok', 'ok'],
    ['ec2/create-tags-value-of-257', 'CreateTags', 'InvalidParameterValue', 'ok'],
    ['ec2/create-tags-value-of-257', 'DescribeTags of the resources', 'ok', 'ok'],
    ['ec2/create-tags-none', 'CreateTags', 'MissingParameter', 'ok'],
    ['ec2/delete-tags-aws-prefix', 'DeleteTags', 'InvalidParameterValue', 'ok'],
  ),
  ...explain(
    'moto',
    "moto's CreateTags and DeleteTags let an instance ID that does not exist through (its lookup returns nothing instead of failing); EC2 answers InvalidInstanceID.NotFound.",
    ['ec2/create-tags-missing-instance', 'CreateTags', 'InvalidInstanceID.NotFound', 'ok'],
    ['ec2/create-tags-missing-instance', 'DescribeTags of the resources', 'ok', 'ok'],
    ['ec2/delete-tags-missing-instance', 'DeleteTags', 'InvalidInstanceID.NotFound', 'ok'],
  ),
  ...explain(
    'moto',
    "moto's message shows the ID as a Python set ('{'sg-…'}'); EC2 says The security group 'sg-…' does not exist.",
    ['ec2/create-tags-missing-security-group', 'CreateTags', 'InvalidGroup.NotFound', 'InvalidGroup.NotFound'],
  ),
  ...explain(
    'moto',
    `moto's DeleteTags without tags deletes nothing; EC2 deletes every user tag of the resources (${EC2}, DeleteTags).`,
    ['ec2/delete-tags-without-tags-deletes-all', 'DescribeTags of the resources', 'ok', 'ok'],
  ),
  ...explain(
    'moto',
    `moto's DescribeTags ignores the tag:<key> filter and filters it does not know; EC2 supports tag:<key> and refuses an unknown filter with InvalidParameterValue (${EC2}, DescribeTags).`,
    ['ec2/describe-tags-tag-filter', 'DescribeTags', 'ok', 'ok'],
    ['ec2/describe-tags-unknown-filter', 'DescribeTags', 'InvalidParameterValue', 'ok'],
  ),
  ...explain(
    'moto',
    `moto's DescribeTags ignores MaxResults: one page, whatever is asked; EC2 pages with MaxResults 5-1000 and NextToken (${EC2}, DescribeTags).`,
    ['ec2/describe-tags-pages', 'DescribeTags 5 a page', 'ok', 'ok'],
    ['ec2/describe-tags-max-results-4', 'DescribeTags', 'InvalidParameterValue', 'ok'],
  ),
];
