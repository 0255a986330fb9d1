import { ACCOUNT_ID, LIMITS } from './patterns.js';
import {
  clusterName,
  conditions,
  clusterIdentityRef,
  observedGeneration,
  TAG_LAYERS,
  region,
  TAG_KEY_TRIMMED,
  tagSource,
  tagValue,
} from './fields.js';
import { array, boolean, integer, map, named, object, string } from './openapi.js';
import { AGE_COLUMN, type KindDefinition } from './kind.js';
import { reservedTagKeyRules } from './reserved-tags.js';

// Map keys cannot carry a `pattern`, so the key rules are CEL. CEL's `matches` is RE2 on the API
// server but a RegExp without Unicode classes in JavaScript engines, so the CRD cannot name AWS's
// allow-list (`\\p{L}`); it refuses what both read alike: control characters (a tab), ASCII
// punctuation AWS refuses and the common symbol and punctuation blocks. Invisible format characters
// (U+202E) are left to the admission webhook and the controller, which check the full allow-list
// (TAG_CHARACTERS) and show them escaped. Code points above U+00FF are CEL escapes, turned into the
// characters before either regex engine sees them.
export const REFUSED_KEY_CHARACTERS =
  '[\\\\x00-\\\\x1f\\\\x7f-\\\\x9f!"#$%&\\\'()*,;<>?\\\\[\\\\]^`{|}~\\\\\\\\' +
  '\\\\xa1-\\\\xa9\\\\xab-\\\\xb1\\\\xb4\\\\xb6-\\\\xb8\\\\xbb\\\\xbf\\\\xd7\\\\xf7' +
  '\\u2010-\\u2027\\u2030-\\u205e\\u20a0-\\u20cf\\u2190-\\u245f' +
  '\\u2500-\\u2775\\u2794-\\u2bff\\u3001-\\u3004\\u3008-\\u3020\\ue000-\\uf8ff\\ufe10-\\ufe19' +
  '\\ufe30-\\ufe6f\\uff01-\\uff0f\\uff1a-\\uff20\\uff3b-\\uff40\\uff5b-\\uff65\\ufff9-\\ufffd]';

const additionalTagKeyRules = [
  {
    rule: `self.all(k, k.size() >= 1 && k.size() <= ${LIMITS.tagKeyLength})`,
    message: `tag keys must be 1-${LIMITS.tagKeyLength} characters`,
  },
  {
    rule: "self.all(k, !k.lowerAscii().startsWith('aws:'))",
    message: 'tag keys starting with "aws:" are reserved by AWS',
  },
  { rule: 'self.all(k, k.trim() == k)', message: TAG_KEY_TRIMMED.message },
  {
    rule: `self.all(k, !k.matches('${REFUSED_KEY_CHARACTERS}'))`,
    message: 'tag keys may hold only letters, digits, spaces and _ . : / = + - @',
  },
  ...reservedTagKeyRules('map'),
];

const tagging = named(
  'ClusterTagging',
  object("How Keymaster tags this cluster's AWS resources.", {
    removalPolicy: string(
      'Retain (default): a key dropped from every layer stops being managed and stays on the resources. Delete: ' +
        'Keymaster removes a dropped key from a resource when the value there is still the one it applied.',
      { enum: ['Retain', 'Delete'], default: 'Retain' },
    ),
    paused: boolean("Stop tagging this cluster's resources (identity checks go on).", { default: false }),
    dryRun: boolean(
      'Plan without writing: the controller finds the resources and reads their tags, writes none, and shows ' +
        'what it would change in status.tagging.plan.',
      { default: false },
    ),
    extraRegions: array('Regions besides spec.region where the cluster has resources.', region('An AWS region.'), {
      maxItems: 16,
      'x-kubernetes-list-type': 'set',
    }),
  }),
);

const conflict = named(
  'TagConflict',
  object(
    "Two layers asked for different values of one key; the winner's value is applied.",
    {
      key: string('The tag key.'),
      winner: tagSource,
      loser: tagSource,
    },
    { required: ['key', 'winner', 'loser'] },
  ),
);

const count = (description: string) => integer(description, { minimum: 0 });

const planChange = named(
  'TagPlanChange',
  object(
    'What the plan does to one key of one resource.',
    {
      resource: string('The ARN of the resource.'),
      key: string('The tag key.'),
      action: string(
        'Add, Update or Remove the key; Withhold: an add held back by the 50-tag limit; Keep: a dropped key ' +
          'left in place because someone changed it since Keymaster applied it.',
        { enum: ['Add', 'Update', 'Remove', 'Withhold', 'Keep'] },
      ),
      from: string('The value on the resource now (Update, Remove, Keep).'),
      to: string('The value the plan sets (Add, Update, Withhold).'),
      reason: string(
        'Why: PolicyChanged, Drift or Adopted for an update; Dropped for a removal (no layer sets the key); ' +
          'TagLimit for a withheld add; ChangedSince for a kept key.',
      ),
      layer: string('The layer whose claim wins the key (Global, Selected, Account or Cluster).', {
        enum: [...TAG_LAYERS],
      }),
      object: string('The object whose claim wins the key, as Kind/name (namespace/name for clusters).'),
    },
    { required: ['resource', 'key', 'action'] },
  ),
);

const planStatus = named(
  'TagPlanStatus',
  object(
    'The dry run (spec.tagging.dryRun): what a reconcile would change, from the tags discovery read. Bounded: ' +
      `counts, and the first ${LIMITS.planChangesInStatus} changes in ARN and key order. \`keymaster plan\` shows all of them.`,
    {
      resourcesToChange: count('Resources whose tags the plan changes (or would take over the 50-tag limit).'),
      resourcesOverLimit: count('Resources whose adds are withheld by the 50-tag limit.'),
      resourcesSkipped: count('Resources left alone (shared, no region, ...).'),
      tagsToAdd: count('Keys to add, over all resources.'),
      tagsToUpdate: count('Keys to set to another value.'),
      tagsToRemove: count('Keys to remove (removalPolicy: Delete).'),
      tagsWithheld: count('Keys not added because of the 50-tag limit.'),
      changes: array(`The first ${LIMITS.planChangesInStatus} changes.`, planChange, {
        maxItems: LIMITS.planChangesInStatus,
      }),
      changesNotShown: count(`Changes beyond the first ${LIMITS.planChangesInStatus}, not listed.`),
    },
  ),
);

const taggingStatus = named(
  'ClusterTaggingStatus',
  object('The outcome of the last tag reconciliation.', {
    resourcesDiscovered: count("Resources found with this cluster's owned ownership tags."),
    resourcesInSync: count('Resources whose managed tags match the effective tags.'),
    resourcesDrifted: count('Resources whose tags differed and were (or are to be) corrected.'),
    resourcesFailed: count('Resources Keymaster could not tag.'),
    conflicts: array('Keys that two layers set to different values, with the winning and losing sources.', conflict, {
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['key'],
    }),
    managedTags: map(
      "The keys Keymaster manages on this cluster's resources, with the value it last applied. The Delete removal " +
        'policy removes only keys listed here whose live value is still this value.',
      string('The value applied.'),
    ),
    lastSyncTime: string('When the tags were last reconciled successfully.', { format: 'date-time' }),
    summary: string(
      'resourcesInSync/resourcesDiscovered as text, e.g. 18/20: the In-Sync column of `kubectl get awsclusters` ' +
        '(a printer column shows one field and cannot join two).',
      { maxLength: 32 },
    ),
    plan: planStatus,
  }),
);

const identityLink = named(
  'IdentityLink',
  object(
    "One link of the resolved identity chain, from the cluster's own identity to the root.",
    {
      apiGroup: string(
        "The identity's API group when it is not Keymaster's: infrastructure.cluster.x-k8s.io for CAPA's.",
      ),
      kind: string('The identity kind.'),
      name: string('The identity name.'),
      roleARN: string('The role assumed by this link (role identities).'),
    },
    { required: ['kind', 'name'] },
  ),
);

const objectName = string("The object's name, in the AWSCluster's namespace.", { maxLength: 253 });

const clusterAPI = named(
  'ClusterAPIOrigin',
  object(
    'Set by Keymaster only, on the companion AWSCluster it keeps for a Cluster API Cluster of a namespace labelled ' +
      'keymaster.dev/adopt=cluster-api (keymaster run --adopt-cluster-api). Honoured only on an AWSCluster owned ' +
      'by that Cluster in such a namespace; anywhere else it is ignored.',
    {
      clusterRef: object(
        'The Cluster API Cluster (cluster.x-k8s.io) this AWSCluster follows.',
        { name: objectName },
        { required: ['name'] },
      ),
      infrastructureRef: object(
        "CAPA's object the region, name and identity are read from: its AWSCluster, or an EKS cluster's " +
          'AWSManagedControlPlane.',
        {
          apiGroup: string("The object's API group.", { maxLength: 253 }),
          kind: string("The object's kind.", { maxLength: 63 }),
          name: objectName,
        },
        { required: ['apiGroup', 'kind', 'name'] },
      ),
      additionalTags: map(
        "CAPA's spec.additionalTags of that object: a tag layer Keymaster reads and never writes back.",
        string('The tag value.', { maxLength: LIMITS.tagValueLength }),
        { maxProperties: LIMITS.tagsPerResource },
      ),
    },
    { required: ['clusterRef', 'infrastructureRef'] },
  ),
);

export const awsCluster: KindDefinition = {
  kind: 'AWSCluster',
  plural: 'awsclusters',
  singular: 'awscluster',
  shortNames: ['kmc'],
  scope: 'Namespaced',
  description:
    "A workload cluster's AWS footprint as Keymaster sees it: the identity it acts with and the tags its " +
    'resources must carry.',
  spec: named(
    'AWSClusterSpec',
    object(
      "The cluster's region, identity and tags.",
      {
        region: region('The AWS region of the cluster, e.g. eu-west-1.'),
        identityRef: clusterIdentityRef(
          'The identity the cluster acts with. Default: the controller identity "default". Cannot be removed once set.',
          { default: { kind: 'AWSClusterControllerIdentity', name: 'default' } },
        ),
        clusterName: clusterName(
          "The name in the cluster's AWS ownership tags (sigs.k8s.io/cluster-api-provider-aws/cluster/<name>, " +
            "kubernetes.io/cluster/<name>) and in the AWS Load Balancer Controller's elbv2.k8s.aws/cluster tag. " +
            'Default: metadata.name. Immutable.',
          [{ rule: 'self == oldSelf', message: 'clusterName is immutable' }],
        ),
        additionalTags: map(
          'Cluster-level tags for every resource of the cluster. They win over account and global tags unless ' +
            'those say overridePolicy: Deny.',
          tagValue('The tag value (0-256 characters; letters, digits, spaces and `_ . : / = + - @`).'),
          { maxProperties: LIMITS.tagsPerResource, 'x-kubernetes-validations': additionalTagKeyRules },
        ),
        tagging,
        clusterAPI,
      },
      {
        required: ['region'],
        'x-kubernetes-validations': [
          {
            rule: '!has(oldSelf.identityRef) || has(self.identityRef)',
            message: 'identityRef cannot be removed once set',
          },
          {
            rule: 'has(self.clusterName) == has(oldSelf.clusterName)',
            message: 'clusterName cannot be added or removed after creation',
          },
        ],
      },
    ),
  ),
  status: named(
    'AWSClusterStatus',
    object('What the controller observed.', {
      accountID: string("The AWS account the cluster's identity acts in.", { pattern: ACCOUNT_ID }),
      principalARN: string("The caller ARN of the cluster's credentials."),
      identityChain: array("The resolved identity chain, the cluster's own identity first.", identityLink),
      identityChainSummary: string(
        "The identity chain's names joined by commas, e.g. tenant-b,hub,default: the Chain column of " +
          '`kubectl get awsclusters -o wide` (a printer column shows one item of a list).',
        { maxLength: 1024 },
      ),
      conditions,
      observedGeneration,
      tagging: taggingStatus,
    }),
  ),
  specRequired: true,
  // What an operator scans for: is it Ready, and if not why; which account; are its resources tagged.
  // -o wide adds where it is and which identities it acts through.
  printerColumns: [
    {
      name: 'Ready',
      type: 'string',
      jsonPath: '.status.conditions[?(@.type=="Ready")].status',
      description: 'Ready condition.',
    },
    {
      name: 'Reason',
      type: 'string',
      jsonPath: '.status.conditions[?(@.type=="Ready")].reason',
      description: "The Ready condition's reason: Ready, or the first failing input.",
    },
    { name: 'Account', type: 'string', jsonPath: '.status.accountID', description: 'AWS account.' },
    {
      name: 'In-Sync',
      type: 'string',
      jsonPath: '.status.tagging.summary',
      description: 'Resources carrying the effective tags / resources discovered.',
    },
    {
      name: 'Drifted',
      type: 'integer',
      jsonPath: '.status.tagging.resourcesDrifted',
      description: 'Resources whose tags still differ after the last reconcile.',
    },
    AGE_COLUMN,
    { name: 'Region', type: 'string', jsonPath: '.spec.region', description: 'AWS region.', priority: 1 },
    {
      name: 'Identity',
      type: 'string',
      jsonPath: '.spec.identityRef.name',
      description: "The cluster's own identity (spec.identityRef.name).",
      priority: 1,
    },
    {
      name: 'Chain',
      type: 'string',
      jsonPath: '.status.identityChainSummary',
      description: "The identity chain's names, the cluster's own identity first.",
      priority: 1,
    },
  ],
  // Keymaster's AWSClusters have no Cluster API Cluster above them: they move with their namespace.
  clusterctlMove: 'move',
};
