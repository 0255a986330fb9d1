import { atomicList, free, integer, keyedList, kindSchema, object, string } from '../../schema/builders.js';
import type { Schema } from '../../schema/types.js';
import { ageColumn, column, countOf, nameColumn } from '../../table/columns.js';
import type { StatusCause } from '../../api/status.js';
import { compileConditions } from '../../admission/policies/compile.js';
import { arrayAt, isObject, type JsonObject } from '../../util/json.js';
import type { ResourceDef } from '../types.js';
import { defineBuiltin } from './define.js';

const selector = (description: string): Schema => free(description);

/** A webhook, with kube-apiserver's v1 defaults; the fields it does not default are kept as given. */
const webhook = (mutating: boolean): Schema =>
  object(
    'A webhook and the resources and operations it applies to.',
    {
      name: string('The name of the admission webhook.'),
      failurePolicy: string('How unrecognized errors from the admission endpoint are handled.', {
        default: 'Fail',
      }),
      matchPolicy: string('How the rules list is used to match incoming requests.', { default: 'Equivalent' }),
      namespaceSelector: { ...selector('Which namespaces the webhook applies to.'), default: {} },
      objectSelector: { ...selector('Which objects the webhook applies to, by their labels.'), default: {} },
      timeoutSeconds: integer('Timeout for this webhook, in seconds.', { default: 10 }),
      rules: atomicList(
        'The operations and resources the webhook cares about.',
        object(
          'RuleWithOperations: operations and the resources they apply to.',
          { scope: string('The scope of this rule.', { default: '*' }) },
          { 'x-kubernetes-preserve-unknown-fields': true },
        ),
      ),
      ...(mutating
        ? {
            reinvocationPolicy: string('Whether the webhook is called again after other mutations.', {
              default: 'Never',
            }),
          }
        : {}),
    },
    { 'x-kubernetes-preserve-unknown-fields': true },
  );

/** Each webhook's matchConditions compile, as kube-apiserver's validation requires of a configuration. */
function matchConditionCauses(configuration: JsonObject): StatusCause[] {
  const causes: StatusCause[] = [];
  (arrayAt(configuration, 'webhooks') ?? []).filter(isObject).forEach((webhook, index) => {
    const conditions = (arrayAt(webhook, 'matchConditions') ?? []).filter(isObject);
    compileConditions(conditions, false, `webhooks[${index}].matchConditions`, causes);
  });
  return causes;
}

/** Stored and served; their webhooks are called by admission/dispatch.ts. */
const webhookConfiguration = (kind: string, plural: string): ResourceDef =>
  defineBuiltin({
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    plural,
    kind,
    namespaced: false,
    categories: ['api-extensions'],
    tracksGeneration: true,
    schema: kindSchema(`${kind} describes the configuration of admission webhooks.`, {
      webhooks: keyedList(
        'Webhooks is a list of webhooks and the affected resources and operations.',
        'name',
        webhook(kind.startsWith('Mutating')),
      ),
    }),
    columns: [
      nameColumn(),
      column('Webhooks', 'integer', 'Webhooks indicates the number of webhooks registered in this configuration', (o) =>
        countOf(o.webhooks),
      ),
      ageColumn,
    ],
    strategy: { validate: matchConditionCauses },
  });

export const admissionResources: ResourceDef[] = [
  webhookConfiguration('ValidatingWebhookConfiguration', 'validatingwebhookconfigurations'),
  webhookConfiguration('MutatingWebhookConfiguration', 'mutatingwebhookconfigurations'),
];
