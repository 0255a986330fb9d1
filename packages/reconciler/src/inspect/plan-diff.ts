import { characterCount, displayText, quoteText, type TagConflict, type TagPlanChange } from '@keymaster/api';
import { elide, LINE_WIDTH, wrap, wrapText } from './line-width.js';
import { conflictText, reasonText, winnerText } from './plan-why.js';

/** Each change's mark, as a diff marks lines. */
const MARKS: Record<TagPlanChange['action'], string> = { Add: '+', Update: '~', Remove: '-', Withhold: '!', Keep: '=' };

export const LEGEND = 'tags: + add, ~ change, - remove, ! withheld (over the limit), = kept (changed since applied)';

/** Where a group's changes start: under the resources they apply to. */
const CHANGE_INDENT = '    ';

/** The longest a key or value may be before it is cut: they share a line's width evenly, the short ones whole. */
function fairShare(lengths: readonly number[], room: number): number {
  const sorted = [...lengths].sort((a, b) => a - b);
  let left = room;
  for (const [index, length] of sorted.entries()) {
    const share = Math.floor(left / (sorted.length - index));
    if (length > share) return Math.max(share, 1);
    left -= length;
  }
  return Infinity;
}

/** `+ key = "v"`, `~ key: "a" -> "b"` or `- key = "v"`, its key and values cut in the middle to fit a line. */
function changeText({ action, key, from, to }: TagPlanChange): string {
  const values = [from, to].filter((value) => value !== undefined).map(quoteText);
  const parts = [displayText(key), ...values];
  // The characters around them: `~ ` `: ` ` -> `, or `+ ` ` = `.
  const around = action === 'Update' ? 8 : 5;
  const share = fairShare(
    parts.map((part) => characterCount(part)),
    LINE_WIDTH - CHANGE_INDENT.length - around,
  );
  const [shownKey, first, second] = parts.map((part) => elide(part, share));
  if (action === 'Update') return `~ ${shownKey}: ${first} -> ${second}`;
  return `${MARKS[action]} ${shownKey} = ${first}`;
}

/** Why: the reason, the winning layer and object, the claim it overrode. */
function whyText(change: TagPlanChange, conflicts: readonly TagConflict[]): string {
  const winner = winnerText(change);
  const why = [
    change.reason ? reasonText(change.reason) : undefined,
    winner ? `from ${winner}` : undefined,
    conflictText(change.key, conflicts) || undefined,
  ]
    .filter((part) => part !== undefined)
    .join('; ');
  return displayText(why);
}

/**
 * A group's changes, each with its why on its line or, when that would be too wide, on the next ones.
 * The whys on the changes' lines start in one column: the one that keeps the most of them there.
 */
function changeLines(changes: readonly TagPlanChange[], conflicts: readonly TagConflict[]): string[] {
  const shown = changes.map((change) => {
    const text = changeText(change);
    const why = whyText(change, conflicts);
    // The widest column this change's why may start after: `  # ` and the why must still fit.
    const limit = LINE_WIDTH - CHANGE_INDENT.length - 4 - characterCount(why);
    return { text, why, width: characterCount(text), limit };
  });
  const fitting = shown.filter(({ why, width, limit }) => why !== '' && width <= limit);
  let aligned = { column: 0, inline: [] as typeof shown };
  for (const { width: column } of fitting) {
    const inline = fitting.filter(({ width, limit }) => width <= column && column <= limit);
    if (inline.length > aligned.inline.length) aligned = { column, inline };
  }
  return shown.flatMap((change) => {
    const { text, why, width } = change;
    const line = `${CHANGE_INDENT}${text}`;
    if (why === '') return [line];
    if (aligned.inline.includes(change)) return [`${line}${' '.repeat(aligned.column - width)}  # ${why}`];
    return [line, ...wrapText(`${CHANGE_INDENT}    # `, why, `${CHANGE_INDENT}      `)];
  });
}

/** `arn:partition:service:region:account:` and the resource after it; an ARN of another shape is all prefix-less resource. */
function splitArn(arn: string): [prefix: string, resource: string] {
  const match = /^(arn:[^:]*:[^:]*:[^:]*:[^:]*:)(.+)$/.exec(arn);
  return match ? [match[1]!, match[2]!] : ['', arn];
}

/** The resources of a group: one by its ARN; several by their common ARN prefix, then their resources, listed. */
function resourceLines(resources: readonly string[]): string[] {
  if (resources.length === 1) return [`  ${elide(resources[0]!, LINE_WIDTH - 2)}`];
  const byPrefix = new Map<string, string[]>();
  for (const arn of resources) {
    const [prefix, resource] = splitArn(arn);
    const listed = byPrefix.get(prefix) ?? [];
    listed.push(resource);
    byPrefix.set(prefix, listed);
  }
  return [
    `  ${resources.length} resources, the same change:`,
    ...[...byPrefix].flatMap(([prefix, listed]) =>
      wrap(
        prefix === '' ? '    ' : `    ${elide(prefix, LINE_WIDTH - 6)} `,
        listed.map((resource, index) => (index < listed.length - 1 ? `${resource},` : resource)),
        '      ',
      ),
    ),
  ];
}

/**
 * A plan's changes as a diff: the resources with the identical change together (the common case:
 * a cluster's resources all get the same tags), each group's resources, then each key added (+),
 * changed (~), removed (-), withheld (!) or kept (=), with why. No line is wider than LINE_WIDTH.
 */
export function diffLines(changes: readonly TagPlanChange[], conflicts: readonly TagConflict[]): string[] {
  const groups = new Map<string, { resources: string[]; changes: TagPlanChange[] }>();
  const byResource = new Map<string, TagPlanChange[]>();
  for (const change of changes) {
    const own = byResource.get(change.resource) ?? [];
    own.push(change);
    byResource.set(change.resource, own);
  }
  for (const [resource, own] of byResource) {
    const signature = JSON.stringify(own.map(({ resource: _resource, ...change }) => change));
    const group = groups.get(signature) ?? { resources: [], changes: own };
    group.resources.push(resource);
    groups.set(signature, group);
  }
  return [...groups.values()].flatMap((group, index) => [
    ...(index > 0 ? [''] : []),
    ...resourceLines(group.resources),
    ...changeLines(group.changes, conflicts),
  ]);
}
