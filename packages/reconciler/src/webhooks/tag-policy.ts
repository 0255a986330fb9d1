import type { AWSTagPolicy } from '@keymaster/api';
import { describeObject, isSelectedPolicy } from '@keymaster/tagging';
import { schemaProblems, specUnchanged, tagProblems } from './checks.js';
import { allow, deny, type AdmissionRequest, type Verdict } from './review.js';

/** The tag policy's tags under the full AWS tag rules, and its schema (selectors on all but `default`). */
export function validateTagPolicy(request: AdmissionRequest): Verdict {
  if (request.operation === 'DELETE' || specUnchanged(request)) return allow();
  const policy = request.object as AWSTagPolicy;
  const invalid = [
    ...schemaProblems(request),
    ...tagProblems(policy.spec.resourceTags ?? [], {
      layer: isSelectedPolicy(policy) ? 'Selected' : 'Global',
      object: describeObject(policy),
    }),
  ];
  return invalid.length > 0 ? deny(422, invalid.join('; ')) : allow();
}
