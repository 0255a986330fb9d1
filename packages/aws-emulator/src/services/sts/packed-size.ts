import { isRecord } from '../../iam/policy.js';
import { ApiError } from '../../protocols/api-error.js';
import { characterCount } from '../../text.js';

/**
 * AWS packs a session's inline policy, policy ARNs and session tags into a binary form with a limit of
 * its own, which it does not publish, and refuses more than 100% of it (`PackedPolicyTooLarge`, with the
 * percentage). This is the emulator's stand-in, fitted to what AWS reports:
 * each action in the policy costs a fixed share (a policy of 31 actions consumed about 118%, one of 42
 * about 157%, one of a single action with two tags 6%), every other string its characters, of a
 * budget of 1000 units.
 */
const BUDGET = 1000;
const ACTION_COST = 36;

export interface PackedContent {
  /** The inline session policy, parsed (its JSON). */
  readonly policy?: unknown;
  readonly policyArns: readonly string[];
  readonly tags: readonly (readonly [string, string])[];
}

/** The packed size of a session's policies and tags, in percent of AWS's budget (rounded up). */
function packedPercent(content: PackedContent): number {
  let units = content.policy === undefined ? 0 : policyUnits(content.policy);
  for (const arn of content.policyArns) units += characterCount(arn);
  for (const [key, value] of content.tags) units += characterCount(key) + characterCount(value);
  return Math.ceil((units * 100) / BUDGET);
}

/** AWS's refusal of a session whose packed policies and tags exceed the budget. */
export function checkPackedSize(content: PackedContent): void {
  const percent = packedPercent(content);
  if (percent > 100) {
    throw new ApiError(
      'PackedPolicyTooLarge',
      `Packed policy consumes ${percent}% of allotted space, please use smaller policy.`,
    );
  }
}

/** The units of a policy document: each action its fixed share, condition keys and every other string their characters. */
function policyUnits(document: unknown): number {
  if (!isRecord(document)) return 0;
  let units = stringUnits(document.Version) + stringUnits(document.Id);
  const statements = Array.isArray(document.Statement) ? document.Statement : [document.Statement];
  for (const statement of statements.filter(isRecord)) {
    for (const [element, value] of Object.entries(statement)) {
      if (element === 'Action' || element === 'NotAction') units += listOf(value).length * ACTION_COST;
      else if (element === 'Condition' && isRecord(value)) units += conditionUnits(value);
      else units += stringUnits(value);
    }
  }
  return units;
}

function conditionUnits(block: Record<string, unknown>): number {
  let units = 0;
  for (const keys of Object.values(block).filter(isRecord)) {
    for (const [key, values] of Object.entries(keys)) units += characterCount(key) + stringUnits(values);
  }
  return units;
}

/** The characters of a string, or of each string of a list. */
function stringUnits(value: unknown): number {
  return listOf(value).reduce<number>((sum, item) => sum + (typeof item === 'string' ? characterCount(item) : 0), 0);
}

const listOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : value === undefined ? [] : [value]);
