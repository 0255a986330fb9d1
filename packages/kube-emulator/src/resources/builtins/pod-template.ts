import type { StatusCause } from '../../api/status.js';
import { goFieldValue } from '../../util/go-format.js';
import { arrayAt, isObject, objectAt, stringAt, text, type JsonObject } from '../../util/json.js';

/** `Always` for `:latest` or no tag, `IfNotPresent` otherwise (a digest counts as pinned), as kube-apiserver defaults it. */
function pullPolicyOf(image: string | undefined): string {
  const name = (image ?? '').split('/').pop() ?? '';
  if (name.includes('@')) return 'IfNotPresent';
  const tag = name.includes(':') ? name.slice(name.lastIndexOf(':') + 1) : 'latest';
  return tag === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultContainer(container: JsonObject): void {
  container.imagePullPolicy ??= pullPolicyOf(stringAt(container, 'image'));
  container.resources ??= {};
  container.terminationMessagePath ??= '/dev/termination-log';
  container.terminationMessagePolicy ??= 'File';
}

/**
 * A pod template as kube-apiserver stores it: its metadata (without a zero creationTimestamp from 1.35 on), the PodSpec
 * defaults (restart and DNS policy, scheduler, grace period, security context) and each container's.
 */
export function defaultPodTemplate(template: JsonObject): void {
  if (!isObject(template.metadata)) template.metadata = {};
  const spec = objectAt(template, 'spec');
  if (!spec) return;
  spec.restartPolicy ??= 'Always';
  spec.terminationGracePeriodSeconds ??= 30;
  spec.dnsPolicy ??= 'ClusterFirst';
  spec.securityContext ??= {};
  spec.schedulerName ??= 'default-scheduler';
  for (const list of ['containers', 'initContainers']) {
    for (const container of (arrayAt(spec, list) ?? []).filter(isObject)) defaultContainer(container);
  }
}

/** Whether matchLabels (and matchExpressions) of `selector` select `labels`. */
function selects(selector: JsonObject, labels: JsonObject): boolean {
  const matchLabels = objectAt(selector, 'matchLabels') ?? {};
  if (!Object.entries(matchLabels).every(([key, value]) => labels[key] === value)) return false;
  return (arrayAt(selector, 'matchExpressions') ?? []).filter(isObject).every((expression) => {
    const value = labels[text(expression.key)];
    const values = (arrayAt(expression, 'values') ?? []).map(String);
    switch (expression.operator) {
      case 'In':
        return typeof value === 'string' && values.includes(value);
      case 'NotIn':
        return typeof value !== 'string' || !values.includes(value);
      case 'Exists':
        return value !== undefined;
      default:
        return value === undefined;
    }
  });
}

/** A workload's selector must select its template, whose pod spec needs containers; replicas are not negative. */
export function workloadCauses(spec: JsonObject | undefined): StatusCause[] {
  if (!spec) return [];
  const causes: StatusCause[] = [];
  if (typeof spec.replicas === 'number' && spec.replicas < 0) {
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'spec.replicas',
      message: `Invalid value: ${spec.replicas}: must be greater than or equal to 0`,
    });
  }
  const template = objectAt(spec, 'template');
  const labels = objectAt(objectAt(template, 'metadata'), 'labels') ?? {};
  const selector = objectAt(spec, 'selector');
  if (selector && template && !selects(selector, labels)) {
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'spec.template.metadata.labels',
      message: `Invalid value: ${goFieldValue(labels)}: \`selector\` does not match template \`labels\``,
    });
  }
  const containers = arrayAt(objectAt(template, 'spec'), 'containers') ?? [];
  if (template && containers.length === 0) {
    causes.push({ reason: 'FieldValueRequired', field: 'spec.template.spec.containers', message: 'Required value' });
  }
  return causes;
}
