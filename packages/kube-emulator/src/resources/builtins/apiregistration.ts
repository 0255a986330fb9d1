import type { StatusCause } from '../../api/status.js';
import { boolean, integer, keyedList, kindSchema, object, string, timestamp } from '../../schema/builders.js';
import { ageColumn, column, nameColumn } from '../../table/columns.js';
import { arrayAt, isObject, objectAt, stringAt, text, type JsonObject } from '../../util/json.js';
import { dnsSubdomainCauses, pathSegmentCauses } from '../names.js';
import type { ResourceDef } from '../types.js';
import { defineBuiltin } from './define.js';

const DNS_1035_LABEL = '[a-z]([-a-z0-9]*[a-z0-9])?';

const invalidValue = (field: string, value: unknown, why: string): StatusCause => ({
  reason: 'FieldValueInvalid',
  field,
  message: `Invalid value: ${JSON.stringify(value)}: ${why}`,
});

const required = (field: string, why = ''): StatusCause => ({
  reason: 'FieldValueRequired',
  field,
  message: why ? `Required value: ${why}` : 'Required value',
});

/** kube-aggregator's ValidateAPIService: the name is `version.group`, and a service is fully named. */
function apiServiceCauses(apiService: JsonObject): StatusCause[] {
  const spec = objectAt(apiService, 'spec') ?? {};
  const name = text(objectAt(apiService, 'metadata')?.name);
  const group = stringAt(spec, 'group') ?? '';
  const version = stringAt(spec, 'version') ?? '';
  const requiredName = `${version}.${group}`;
  const causes = pathSegmentCauses(name, 'metadata.name');
  if (causes.length === 0 && name !== requiredName) {
    causes.push(invalidValue('metadata.name', name, `must be \`spec.version+"."+spec.group\`: "${requiredName}"`));
  }
  if (group === '' && version !== 'v1') {
    causes.push(required('spec.group', 'only v1 may have an empty group and it better be legacy kube'));
  }
  if (group !== '') causes.push(...dnsSubdomainCauses(group, 'spec.group'));
  if (version.length > 63) causes.push(invalidValue('spec.version', version, 'must be no more than 63 characters'));
  if (!new RegExp(`^${DNS_1035_LABEL}$`).test(version)) {
    causes.push(
      invalidValue(
        'spec.version',
        version,
        `a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '${DNS_1035_LABEL}')`,
      ),
    );
  }
  const groupPriority = Number(spec.groupPriorityMinimum ?? 0);
  if (groupPriority <= 0 || groupPriority > 20000) {
    causes.push(invalidValue('spec.groupPriorityMinimum', groupPriority, 'must be positive and less than 20000'));
  }
  const versionPriority = Number(spec.versionPriority ?? 0);
  if (versionPriority <= 0 || versionPriority > 1000) {
    causes.push(invalidValue('spec.versionPriority', versionPriority, 'must be positive and less than 1000'));
  }
  const caBundle = stringAt(spec, 'caBundle') ?? '';
  const insecure = spec.insecureSkipTLSVerify === true;
  const service = objectAt(spec, 'service');
  if (!service) {
    if (caBundle) {
      const bytes = Buffer.from(caBundle, 'base64').length;
      causes.push(invalidValue('spec.caBundle', `${bytes} bytes`, 'local APIServices may not have a caBundle'));
    }
    if (insecure) {
      causes.push(
        invalidValue('spec.insecureSkipTLSVerify', true, 'local APIServices may not have insecureSkipTLSVerify'),
      );
    }
    return causes;
  }
  if (!stringAt(service, 'namespace')) causes.push(required('spec.service.namespace'));
  if (!stringAt(service, 'name')) causes.push(required('spec.service.name'));
  if (insecure && caBundle) {
    causes.push(invalidValue('spec.insecureSkipTLSVerify', true, 'may not be true if caBundle is present'));
  }
  return causes;
}

/** The Available condition, if the availability controller has set one. */
export const availableCondition = (apiService: JsonObject | undefined): JsonObject | undefined =>
  (arrayAt(objectAt(apiService, 'status'), 'conditions') ?? [])
    .filter(isObject)
    .find((condition) => condition.type === 'Available');

/**
 * apiregistration.k8s.io/v1 APIService: claims `/apis/<group>/<version>` for a Service (an aggregated
 * server, reached by api/aggregation.ts) and carries the availability controllers/apiservices.ts sets.
 */
export const apiServices: ResourceDef = defineBuiltin({
  group: 'apiregistration.k8s.io',
  version: 'v1',
  plural: 'apiservices',
  kind: 'APIService',
  namespaced: false,
  categories: ['api-extensions'],
  statusSubresource: true,
  schema: kindSchema('APIService represents a server for a particular GroupVersion.', {
    spec: object('Spec contains information for locating and communicating with a server.', {
      service: object('A reference to the service for this API server; absent for a local one.', {
        namespace: string('The namespace of the service.'),
        name: string('The name of the service.'),
        port: integer('The port on the service that hosts the API server.', { default: 443 }),
      }),
      group: string('The API group name this server hosts.'),
      version: string('The API version this server hosts.'),
      insecureSkipTLSVerify: boolean('Disables TLS certificate verification when communicating with this server.'),
      caBundle: string("A PEM encoded CA bundle which will be used to validate an API server's serving certificate.", {
        format: 'byte',
      }),
      groupPriorityMinimum: integer('The priority this group should have at least.'),
      versionPriority: integer('The ordering of this API inside of its group.'),
    }),
    status: object('Status contains derived information about an API server.', {
      conditions: keyedList(
        'Current service state of apiService.',
        'type',
        object('APIServiceCondition describes the state of an APIService at a particular point.', {
          type: string('Type is the type of the condition.'),
          status: string('Status is the status of the condition.'),
          lastTransitionTime: timestamp('Last time the condition transitioned from one status to another.'),
          reason: string("Unique, one-word, CamelCase reason for the condition's last transition."),
          message: string('Human-readable message indicating details about last transition.'),
        }),
      ),
    }),
  }),
  strategy: { validate: apiServiceCauses, validatesName: true },
  columns: [
    nameColumn(),
    column('Service', 'string', 'The reference to the service that hosts this API endpoint.', (o) => {
      const service = objectAt(objectAt(o, 'spec'), 'service');
      return service ? `${text(service.namespace)}/${text(service.name)}` : 'Local';
    }),
    column('Available', 'string', 'Whether this service is available.', (o) => {
      const condition = availableCondition(o);
      if (!condition) return 'Unknown';
      return condition.status === 'True' ? 'True' : `${text(condition.status)} (${text(condition.reason)})`;
    }),
    ageColumn,
  ],
});
