import { array, named, object, string } from './openapi.js';
import { AGE_COLUMN, type KindDefinition } from './kind.js';
import { ACCOUNT_ID, CLUSTER_NAME, LEDGER_PRINT, LEDGER_RESOURCE, LIMITS, REGION } from './patterns.js';

const prints = (layer: string) =>
  array(
    `Fingerprints of the key=value pairs Keymaster wrote on these resources from the ${layer} layer: 12 characters ` +
      '(72 bits) of SHA-256 of key, a NUL, value.',
    string('A fingerprint.', { pattern: LEDGER_PRINT }),
    { 'x-kubernetes-list-type': 'set' },
  );

const claim = named(
  'LedgerClaim',
  object(
    'A cluster name this AWSCluster owns in one AWS account and region: another AWSCluster of that clusterName there makes no AWS write.',
    {
      accountID: string('The AWS account.', { pattern: ACCOUNT_ID }),
      region: string('The AWS region.', { pattern: REGION, maxLength: 32 }),
      clusterName: string("The name in the resources' ownership tags, exactly as the AWSCluster's spec.clusterName.", {
        pattern: CLUSTER_NAME,
        maxLength: LIMITS.clusterNameLength,
      }),
      since: string('When the claim was recorded: of two ledgers claiming one name, the earlier owns it.', {
        format: 'date-time',
      }),
    },
    { required: ['accountID', 'region', 'clusterName', 'since'] },
  ),
);

const memoryGroup = named(
  'LedgerMemoryGroup',
  object(
    'Resources whose memory is the same: what Keymaster wrote on each of them, by layer.',
    {
      resources: array(
        'The resources, each as 16 characters (96 bits) of SHA-256 of its ARN: a cluster of 20 resources costs ' +
          'a few hundred bytes. `keymaster plan -o yaml` shows each resource by ARN with its memory.',
        string('A resource digest.', { pattern: LEDGER_RESOURCE }),
        { minItems: 1, 'x-kubernetes-list-type': 'set' },
      ),
      global: prints('Global (AWSTagPolicy default)'),
      selected: prints('Selected (the AWSTagPolicies that select the cluster by labels)'),
      account: prints('Account (the identity chain)'),
      cluster: prints('Cluster (the AWSCluster)'),
    },
    { required: ['resources'] },
  ),
);

export const clusterLedger: KindDefinition = {
  kind: 'AWSClusterLedger',
  plural: 'awsclusterledgers',
  singular: 'awsclusterledger',
  shortNames: ['kmledger'],
  scope: 'Namespaced',
  description:
    'What Keymaster remembers of the AWSCluster of the same namespace and name (its controlling owner, deleted with it): ' +
    'the cluster names it owns, and the tags it wrote on each resource, which removalPolicy Delete may remove. ' +
    'Written only by the controller, only after AWS accepted and read back what it records; an admission policy ' +
    "refuses every other writer but the platform's groups, and no AWS principal can write it. No status " +
    'subresource: everything is spec, which clusterctl move carries (it creates objects with their status dropped).',
  spec: named(
    'AWSClusterLedgerSpec',
    object("The cluster's claims and removal memory.", {
      claims: array('The cluster names this AWSCluster owns, per AWS account and region.', claim, {
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['accountID', 'region'],
      }),
      memory: array(
        "What Keymaster wrote on the cluster's resources, resources of the same memory grouped.",
        memoryGroup,
        { 'x-kubernetes-list-type': 'atomic' },
      ),
      legacyTagsConverted: string(
        'When the bookkeeping tags of releases up to 0.2.0 (keymaster.dev/claim, keymaster.dev/applied-*) were ' +
          "converted into this ledger and removed from the cluster's resources, or found to be none. Absent: not yet.",
        { format: 'date-time' },
      ),
    }),
  ),
  specRequired: true,
  printerColumns: [
    {
      name: 'Cluster-Name',
      type: 'string',
      jsonPath: '.spec.claims[0].clusterName',
      description: 'The cluster name claimed.',
    },
    {
      name: 'Account',
      type: 'string',
      jsonPath: '.spec.claims[0].accountID',
      description: 'The AWS account of the first claim.',
    },
    {
      name: 'Converted',
      type: 'date',
      jsonPath: '.spec.legacyTagsConverted',
      description: 'When the legacy bookkeeping tags were converted.',
    },
    AGE_COLUMN,
  ],
  clusterctlMove: 'move',
};
