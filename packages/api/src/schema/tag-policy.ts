import { SINGLETON_NAME } from '../constants.js';
import { conditions, observedGeneration, resourceTags } from './fields.js';
import { named, object } from './openapi.js';
import { AGE_COLUMN, type KindDefinition } from './kind.js';

export const tagPolicy: KindDefinition = {
  kind: 'AWSTagPolicy',
  plural: 'awstagpolicies',
  singular: 'awstagpolicy',
  shortNames: ['kmtp'],
  scope: 'Cluster',
  description:
    'The global tag layer: tags for every resource of every cluster. A singleton: the only valid name is "default".',
  spec: named(
    'AWSTagPolicySpec',
    object('The global tags.', {
      resourceTags: resourceTags(
        "Tags for every resource of every cluster. Identities' and clusters' tags win over these unless " +
          'overridePolicy is Deny.',
      ),
    }),
  ),
  status: named('AWSTagPolicyStatus', object('What the controller observed.', { conditions, observedGeneration })),
  specRequired: true,
  rules: [
    {
      rule: `self.metadata.name == '${SINGLETON_NAME}'`,
      message: `AWSTagPolicy is a singleton: name it "${SINGLETON_NAME}"`,
      fieldPath: '.metadata.name',
    },
  ],
  printerColumns: [AGE_COLUMN],
};
