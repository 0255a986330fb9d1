import { SINGLETON_NAME } from '../constants.js';
import { conditions, labelSelector, observedGeneration, resourceTags } from './fields.js';
import { integer, named, object } from './openapi.js';
import { AGE_COLUMN, type KindDefinition } from './kind.js';

/** The highest spec.precedence: room for a platform's tiers, small enough to read at a glance. */
export const MAX_TAG_POLICY_PRECEDENCE = 1000;

/** The one LabelSelector type, described for its field. */
const selector = (description: string) => named('LabelSelector', { ...labelSelector, description });

/** A selector that is present must name a label: `{}` would select every cluster, which is the default policy's job. */
const notEmpty = (field: 'clusterSelector' | 'namespaceSelector') => ({
  rule:
    `!has(self.${field}) || (has(self.${field}.matchLabels) && self.${field}.matchLabels.size() > 0) || ` +
    `(has(self.${field}.matchExpressions) && self.${field}.matchExpressions.size() > 0)`,
  message:
    `${field} is empty, which would select every cluster: name at least one label in matchLabels or ` +
    `matchExpressions, or put these tags in the AWSTagPolicy "${SINGLETON_NAME}" (every cluster)`,
  fieldPath: `.${field}`,
});

export const tagPolicy: KindDefinition = {
  kind: 'AWSTagPolicy',
  plural: 'awstagpolicies',
  singular: 'awstagpolicy',
  shortNames: ['kmtp'],
  scope: 'Cluster',
  description:
    `A tag layer. The policy named "${SINGLETON_NAME}" is the global layer: tags for every resource of every cluster. ` +
    "Any other policy is a selected layer: tags for the clusters its clusterSelector (the AWSCluster's labels) and " +
    "namespaceSelector (its namespace's labels) both select, between the global layer and the identities' " +
    '(docs/tagging.md, "Policies by selection").',
  spec: named(
    'AWSTagPolicySpec',
    object(
      'The tags, and on a policy other than "default" the clusters they are for.',
      {
        resourceTags: resourceTags(
          "Tags for every resource of the clusters this policy tags. Identities' and clusters' tags win over these " +
            'unless overridePolicy is Deny.',
        ),
        clusterSelector: selector(
          "Selects clusters by the AWSCluster's labels, ANDed with namespaceSelector; absent: any cluster of the " +
            'selected namespaces. Tenants write these labels: a tenant can move its cluster out of a policy ' +
            'selected this way, so mandatory tags belong to namespaceSelector or the "default" policy.',
        ),
        namespaceSelector: selector(
          "Selects clusters by their namespace's labels (which ops write), ANDed with clusterSelector; absent: " +
            'any namespace.',
        ),
        precedence: integer(
          'Between two selected policies that set one key on one cluster, the higher precedence wins (absent: 0); ' +
            'of equal precedence, the name first in alphabetical order wins, and the conflict is reported.',
          { minimum: 0, maximum: MAX_TAG_POLICY_PRECEDENCE },
        ),
      },
      { 'x-kubernetes-validations': [notEmpty('clusterSelector'), notEmpty('namespaceSelector')] },
    ),
  ),
  status: named('AWSTagPolicyStatus', object('What the controller observed.', { conditions, observedGeneration })),
  specRequired: true,
  rules: [
    {
      rule:
        `self.metadata.name != '${SINGLETON_NAME}' || ` +
        '(!has(self.spec.clusterSelector) && !has(self.spec.namespaceSelector) && !has(self.spec.precedence))',
      message:
        `the AWSTagPolicy "${SINGLETON_NAME}" is the global layer and tags every cluster: remove clusterSelector, ` +
        'namespaceSelector and precedence, or give the policy another name to select clusters',
      fieldPath: '.spec',
    },
    {
      rule:
        `self.metadata.name == '${SINGLETON_NAME}' || ` +
        'has(self.spec.clusterSelector) || has(self.spec.namespaceSelector)',
      message:
        `an AWSTagPolicy other than "${SINGLETON_NAME}" tags the clusters it selects: set spec.clusterSelector ` +
        `(the AWSCluster's labels) and/or spec.namespaceSelector (its namespace's labels), or name it "${SINGLETON_NAME}" ` +
        'to tag every cluster',
      fieldPath: '.spec',
    },
  ],
  printerColumns: [
    {
      name: 'Precedence',
      type: 'integer',
      jsonPath: '.spec.precedence',
      description: 'Among selected policies, higher wins.',
    },
    AGE_COLUMN,
  ],
};
