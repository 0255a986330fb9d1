import { free, keyedList, kindSchema } from '../../schema/builders.js';
import { ageColumn, column, countOf, nameColumn } from '../../table/columns.js';
import type { ResourceDef } from '../types.js';
import { defineBuiltin } from './define.js';

/** Stored and served; calling the webhooks is not emulated. */
const webhookConfiguration = (kind: string, plural: string): ResourceDef =>
  defineBuiltin({
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    plural,
    kind,
    namespaced: false,
    categories: ['api-extensions'],
    schema: kindSchema(`${kind} describes the configuration of admission webhooks.`, {
      webhooks: keyedList(
        'Webhooks is a list of webhooks and the affected resources and operations.',
        'name',
        free('A webhook.'),
      ),
    }),
    columns: [
      nameColumn(),
      column('Webhooks', 'integer', 'The number of webhooks', (o) => countOf(o.webhooks)),
      ageColumn,
    ],
  });

export const admissionResources: ResourceDef[] = [
  webhookConfiguration('ValidatingWebhookConfiguration', 'validatingwebhookconfigurations'),
  webhookConfiguration('MutatingWebhookConfiguration', 'mutatingwebhookconfigurations'),
];
