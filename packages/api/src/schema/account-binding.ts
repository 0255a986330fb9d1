import { array, named, object, string } from './openapi.js';
import { AGE_COLUMN, type KindDefinition } from './kind.js';
import { ACCOUNT_ID, LABEL_VALUE } from './patterns.js';

export const accountBinding: KindDefinition = {
  kind: 'AWSAccountBinding',
  plural: 'awsaccountbindings',
  singular: 'awsaccountbinding',
  shortNames: ['kmaccount'],
  scope: 'Cluster',
  description:
    'The tenants whose identities may act in one AWS account, declared by the platform: named after the account ID, ' +
    'one object per account. An identity that carries the tenancy label (keymaster.dev/tenant by default) acts in the ' +
    'account it resolves into (GetCallerIdentity) only when that account has an AWSAccountBinding listing its tenant; ' +
    'otherwise its clusters are refused before any tag is written. Identities without the label belong to the platform ' +
    'and need none. Written by the platform only; the controller creates one when it converts an account claim of an ' +
    'earlier release, and never changes one. No status: everything is spec, which clusterctl move carries.',
  spec: named(
    'AWSAccountBindingSpec',
    object('Who may act in the account.', {
      tenants: array(
        'The tenants (values of the tenancy label on identities) that may act in the account. Several tenants share it; ' +
          'an empty list binds it to none (every labelled identity resolving into it is refused).',
        string('A tenant: a label value.', { pattern: LABEL_VALUE, maxLength: 63 }),
        { maxItems: 64, 'x-kubernetes-list-type': 'set' },
      ),
    }),
  ),
  specRequired: true,
  rules: [
    {
      rule: `self.metadata.name.matches('${ACCOUNT_ID}')`,
      message: 'AWSAccountBinding is named after its AWS account: the 12 digits of the account ID, e.g. "123456789012"',
      fieldPath: '.metadata.name',
    },
  ],
  printerColumns: [
    {
      name: 'Tenants',
      type: 'string',
      jsonPath: '.spec.tenants',
      description: 'The tenants that may act in the account.',
    },
    AGE_COLUMN,
  ],
  // Copied with every move, as identities are: the target must know who may act in each account.
  clusterctlMove: 'move-hierarchy',
};
