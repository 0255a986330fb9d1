import type { StatusCause } from '../api/status.js';

const DNS_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS_SUBDOMAIN = `${DNS_LABEL}(\\.${DNS_LABEL})*`;
const QUALIFIED_NAME = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE = '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?';

const invalidValue = (field: string, value: string, why: string): StatusCause => ({
  reason: 'FieldValueInvalid',
  field,
  message: `Invalid value: ${JSON.stringify(value)}: ${why}`,
});

function check(value: string, field: string, max: number, regex: string, why: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (value.length > max) causes.push(invalidValue(field, value, `must be no more than ${max} characters`));
  if (!new RegExp(`^${regex}$`).test(value)) causes.push(invalidValue(field, value, why));
  return causes;
}

/** Object names of most kinds: a DNS-1123 subdomain. */
export const dnsSubdomainCauses = (value: unknown, field: string): StatusCause[] =>
  typeof value !== 'string'
    ? []
    : check(
        value,
        field,
        253,
        DNS_SUBDOMAIN,
        `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '${DNS_SUBDOMAIN}')`,
      );

/** Namespace names: a DNS-1123 label. */
export const dnsLabelCauses = (value: unknown, field: string): StatusCause[] =>
  typeof value !== 'string'
    ? []
    : check(
        value,
        field,
        63,
        DNS_LABEL,
        `a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '${DNS_LABEL}')`,
      );

const QUALIFIED_NAME_MESSAGE = `must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '${QUALIFIED_NAME}')`;
const DNS_SUBDOMAIN_MESSAGE = `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '${DNS_SUBDOMAIN}')`;

/** apimachinery's IsQualifiedName: the reasons a label key (an optional DNS subdomain prefix, `/`, a name) is not one. */
export function qualifiedNameErrors(value: string): string[] {
  const parts = value.split('/');
  if (parts.length > 2) {
    return [
      `a valid label key ${QUALIFIED_NAME_MESSAGE} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  const errors: string[] = [];
  const name = parts.length === 2 ? parts[1]! : parts[0]!;
  if (parts.length === 2) {
    const prefix = parts[0]!;
    if (prefix.length === 0) errors.push('prefix part must be non-empty');
    else {
      if (Buffer.byteLength(prefix) > 253) errors.push('prefix part must be no more than 253 bytes');
      if (!new RegExp(`^${DNS_SUBDOMAIN}$`).test(prefix)) errors.push(`prefix part ${DNS_SUBDOMAIN_MESSAGE}`);
    }
  }
  if (name.length === 0) errors.push('name part must be non-empty');
  else if (Buffer.byteLength(name) > 63) errors.push('name part must be no more than 63 bytes');
  if (!new RegExp(`^${QUALIFIED_NAME}$`).test(name)) errors.push(`name part ${QUALIFIED_NAME_MESSAGE}`);
  return errors;
}

/** A label or annotation key: an optional DNS subdomain prefix and a qualified name (`shown` is the key as given). */
export const qualifiedNameCauses = (key: string, field: string, shown = key): StatusCause[] =>
  qualifiedNameErrors(key).map((why) => invalidValue(field, shown, why));

/** apimachinery's IsValidLabelValue: the reasons a label value is not one. */
export function labelValueErrors(value: string): string[] {
  const errors: string[] = [];
  if (Buffer.byteLength(value) > 63) errors.push('must be no more than 63 bytes');
  if (!new RegExp(`^${LABEL_VALUE}$`).test(value)) {
    errors.push(
      `a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '${LABEL_VALUE}')`,
    );
  }
  return errors;
}

export const labelValueCauses = (value: string, field: string): StatusCause[] =>
  labelValueErrors(value).map((why) => invalidValue(field, value, why));

/** Names that only have to fit in a URL path segment (RBAC roles and bindings, e.g. `system:auth-delegator`). */
export function pathSegmentCauses(value: unknown, field: string): StatusCause[] {
  if (typeof value !== 'string') return [];
  if (value === '.' || value === '..') return [invalidValue(field, value, `may not be '${value}'`)];
  return ['/', '%']
    .filter((character) => value.includes(character))
    .map((character) => invalidValue(field, value, `may not contain '${character}'`));
}
