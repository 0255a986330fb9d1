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

/** A label or annotation key: an optional DNS subdomain prefix and a qualified name. */
export function qualifiedNameCauses(key: string, field: string): StatusCause[] {
  const slash = key.lastIndexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  const causes =
    prefix === undefined
      ? []
      : dnsSubdomainCauses(prefix, field).map((cause) => ({
          ...cause,
          message: `Invalid value: ${JSON.stringify(key)}: prefix part ${cause.message.replace(/^Invalid value: "[^"]*": /, '')}`,
        }));
  if (name.length === 0 || name.length > 63 || !new RegExp(`^${QUALIFIED_NAME}$`).test(name)) {
    causes.push(
      invalidValue(
        field,
        key,
        `name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '${QUALIFIED_NAME}')`,
      ),
    );
  }
  return causes;
}

export const labelValueCauses = (value: string, field: string): StatusCause[] =>
  check(
    value,
    field,
    63,
    LABEL_VALUE,
    `a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '${LABEL_VALUE}')`,
  );

/** Names that only have to fit in a URL path segment (RBAC roles and bindings, e.g. `system:auth-delegator`). */
export function pathSegmentCauses(value: unknown, field: string): StatusCause[] {
  if (typeof value !== 'string') return [];
  if (value === '.' || value === '..') return [invalidValue(field, value, `may not be '${value}'`)];
  return ['/', '%']
    .filter((character) => value.includes(character))
    .map((character) => invalidValue(field, value, `may not contain '${character}'`));
}
