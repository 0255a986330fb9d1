import { badRequest, type ApiError } from '../api/status.js';
import { isObject, type Json, type JsonObject, text } from '../util/json.js';

export type FieldMatcher = (object: JsonObject) => boolean;

/** Fields every kind can be selected by, and the extra ones of some kinds (as on the real server). */
const COMMON = ['metadata.name', 'metadata.namespace'];
const EXTRA: Record<string, string[]> = {
  Secret: ['type'],
  Namespace: ['status.phase'],
  Event: [
    'involvedObject.kind',
    'involvedObject.namespace',
    'involvedObject.name',
    'involvedObject.uid',
    'involvedObject.apiVersion',
    'involvedObject.resourceVersion',
    'involvedObject.fieldPath',
    'reason',
    'reportingComponent',
    'source',
    'type',
  ],
};

const valueAt = (object: JsonObject, path: string): Json | undefined =>
  path.split('.').reduce<Json | undefined>((value, key) => (isObject(value) ? value[key] : undefined), object);

/**
 * The refusal of a field a kind cannot be selected by: kinds with their own field conversion (and
 * custom resources) say `field label not supported`, the others apimachinery's default words.
 */
function unsupported(field: string, kind: string, custom: boolean): ApiError {
  if (custom || EXTRA[kind]) return badRequest(`field label not supported: ${field}`);
  return badRequest(
    `${JSON.stringify(field)} is not a known field selector: only "metadata.name", "metadata.namespace"`,
  );
}

/** A field selector (`metadata.name=x,metadata.namespace!=y`) for a kind; 400 for unknown fields. */
export function parseFieldSelector(
  selector: string | null | undefined,
  kind: string,
  customResource = false,
): FieldMatcher {
  const known = [...COMMON, ...(EXTRA[kind] ?? [])];
  const terms = (selector ?? '')
    .split(',')
    .map((term) => term.trim())
    .filter((term) => term.length > 0)
    .map((term) => {
      const match = /^([^!=]+?)\s*(==|=|!=)\s*(.*)$/.exec(term);
      if (!match) throw badRequest(`invalid selector: '${selector ?? ''}'; can't understand '${term}'`);
      const [, field, operator, value] = match as unknown as [string, string, string, string];
      if (!known.includes(field)) throw unsupported(field, kind, customResource);
      return { field, negate: operator === '!=', value };
    });
  return (object) =>
    terms.every(({ field, negate, value }) => {
      const actual = valueAt(object, field);
      const equal = (actual === undefined ? '' : text(actual)) === value;
      return negate ? !equal : equal;
    });
}
