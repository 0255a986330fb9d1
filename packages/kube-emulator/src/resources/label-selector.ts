import type { StatusCause } from '../api/status.js';
import { arrayAt, isObject, objectAt, text, type JsonObject } from '../util/json.js';
import { labelValueCauses, qualifiedNameCauses } from './names.js';

/** apimachinery's ValidateLabelSelector (strict): keys, values and operators of a LabelSelector at `field`. */
export function labelSelectorCauses(selector: JsonObject, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const [key, value] of Object.entries(objectAt(selector, 'matchLabels') ?? {})) {
    causes.push(...qualifiedNameCauses(key, `${field}.matchLabels`));
    causes.push(...labelValueCauses(text(value), `${field}.matchLabels`));
  }
  (arrayAt(selector, 'matchExpressions') ?? []).forEach((requirement, index) => {
    if (!isObject(requirement)) return;
    const path = `${field}.matchExpressions[${index}]`;
    const values = (arrayAt(requirement, 'values') ?? []).map(text);
    const operator = text(requirement.operator);
    if (operator === 'In' || operator === 'NotIn') {
      if (values.length === 0) {
        causes.push({
          reason: 'FieldValueRequired',
          field: `${path}.values`,
          message: "Required value: must be specified when `operator` is 'In' or 'NotIn'",
        });
      }
    } else if (operator === 'Exists' || operator === 'DoesNotExist') {
      if (values.length > 0) {
        causes.push({
          reason: 'FieldValueForbidden',
          field: `${path}.values`,
          message: "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
        });
      }
    } else {
      causes.push({
        reason: 'FieldValueInvalid',
        field: `${path}.operator`,
        message: `Invalid value: ${JSON.stringify(operator)}: not a valid selector operator`,
      });
    }
    causes.push(...qualifiedNameCauses(text(requirement.key), `${path}.key`));
    values.forEach((value, valueIndex) => causes.push(...labelValueCauses(value, `${path}.values[${valueIndex}]`)));
  });
  return causes;
}
