import { namespaces } from '../resources/builtins/core.js';
import type { Store } from '../storage/store.js';
import { arrayAt, isObject, objectAt, text, type JsonObject } from '../util/json.js';
import type { AdmissionAttributes } from './request.js';

/**
 * Whether a request is one a webhook or a policy cares about, as kube-apiserver's admission
 * predicates decide it (rules, namespace and object selectors): shared by webhooks and policies.
 */

const strings = (object: JsonObject, field: string): string[] => (arrayAt(object, field) ?? []).map(String);
const listed = (values: string[], value: string): boolean => values.includes('*') || values.includes(value);

/** Whether a LabelSelector selects these labels; `{}` or no selector selects everything. */
export function selectorMatches(selector: unknown, labels: Record<string, unknown>): boolean {
  if (!isObject(selector)) return true;
  const matchLabels = objectAt(selector, 'matchLabels') ?? {};
  if (!Object.entries(matchLabels).every(([key, value]) => labels[key] === value)) return false;
  return (arrayAt(selector, 'matchExpressions') ?? []).filter(isObject).every((expression) => {
    const value = labels[text(expression.key)];
    const values = strings(expression, 'values');
    const operator = text(expression.operator);
    if (operator === 'In') return typeof value === 'string' && values.includes(value);
    if (operator === 'NotIn') return typeof value !== 'string' || !values.includes(value);
    if (operator === 'Exists') return value !== undefined;
    return operator === 'DoesNotExist' && value === undefined;
  });
}

/** A rule's `pods/status`-style resource against the request's resource and subresource (rules.Matcher). */
function resourceMatches(rule: JsonObject, attributes: AdmissionAttributes): boolean {
  return strings(rule, 'resources').some((entry) => {
    const [resource = '', subresource = ''] = entry.split('/', 2);
    return (
      (resource === '*' || resource === attributes.resource.plural) &&
      (subresource === '*' || subresource === (attributes.subresource ?? ''))
    );
  });
}

/** Namespace objects are cluster-scoped; everything in a namespace is Namespaced. */
function scopeMatches(rule: JsonObject, attributes: AdmissionAttributes): boolean {
  const scope = text(rule.scope ?? '*');
  const clusterScoped = attributes.resource === namespaces || !attributes.resource.namespaced;
  if (scope === 'Cluster') return clusterScoped;
  if (scope === 'Namespaced') return !clusterScoped;
  return true;
}

/**
 * One RuleWithOperations against the request. matchPolicy Equivalent (the default) also matches a
 * rule naming another version of the resource: the emulator serves one version of each, so a
 * request is already in any version the hook could be sent.
 */
export function ruleMatches(rule: JsonObject, attributes: AdmissionAttributes, equivalent: boolean): boolean {
  return (
    listed(strings(rule, 'operations'), attributes.operation) &&
    listed(strings(rule, 'apiGroups'), attributes.resource.group) &&
    (equivalent || listed(strings(rule, 'apiVersions'), attributes.resource.version)) &&
    resourceMatches(rule, attributes) &&
    scopeMatches(rule, attributes)
  );
}

const labelsOf = (object: JsonObject | undefined): Record<string, unknown> | undefined =>
  object ? (objectAt(objectAt(object, 'metadata') ?? {}, 'labels') ?? {}) : undefined;

/**
 * namespaceSelector: cluster-scoped objects always match. A Namespace created or updated is
 * matched by its own new labels; any other request on a Namespace (its deletion, its `status` and
 * `finalize` subresources) and everything in a namespace by the stored Namespace's labels.
 */
export function namespaceSelected(selector: unknown, attributes: AdmissionAttributes, store: Store): boolean {
  const isNamespace = attributes.resource === namespaces;
  if (isNamespace && attributes.subresource === undefined && attributes.operation !== 'DELETE') {
    return selectorMatches(selector, labelsOf(attributes.object) ?? {});
  }
  if (!isNamespace && (!attributes.resource.namespaced || !attributes.namespace)) return true;
  const namespace = store.get(namespaces.storageKey, undefined, attributes.namespace ?? '');
  return selectorMatches(selector, labelsOf(namespace) ?? {});
}

/** objectSelector: the new or the old object's labels (either is enough, as kube-apiserver checks). */
export function objectSelected(selector: unknown, attributes: AdmissionAttributes): boolean {
  return [attributes.object, attributes.oldObject]
    .map(labelsOf)
    .some((labels) => labels !== undefined && selectorMatches(selector, labels));
}

/** Whether kube-apiserver would send this request to the webhook. */
export function webhookMatches(webhook: JsonObject, attributes: AdmissionAttributes, store: Store): boolean {
  const equivalent = webhook.matchPolicy !== 'Exact';
  return (
    (arrayAt(webhook, 'rules') ?? []).filter(isObject).some((rule) => ruleMatches(rule, attributes, equivalent)) &&
    namespaceSelected(webhook.namespaceSelector, attributes, store) &&
    objectSelected(webhook.objectSelector, attributes)
  );
}
