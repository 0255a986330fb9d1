import { CAPA_GROUP, CAPA_IDENTITY_KINDS, GROUP } from '../constants.js';
import { IDENTITY_KINDS } from './identity-kinds.js';
import { array, integer, map, named, object, string, type JSONSchemaProps, type ValidationRule } from './openapi.js';
import { reservedTagKeyRules } from './reserved-tags.js';
import {
  CLUSTER_NAME,
  CONDITION_REASON,
  DNS_LABEL,
  DNS_SUBDOMAIN,
  LIMITS,
  REGION,
  TAG_CHARACTERS,
} from './patterns.js';

/**
 * Whitespace around a key: AWS keeps it, so `team ` would be another key than `team` that no listing
 * tells apart. CEL's trim() (Unicode whitespace) reads alike in the API server and cel-js for every
 * character the tag pattern allows.
 */
export const TAG_KEY_TRIMMED = {
  rule: 'self.trim() == self',
  message: 'tag keys may not start or end with whitespace',
};

/** A tag key: AWS's length and characters, no whitespace around it, never `aws:` nor a key the platform reserves. */
export const tagKey = (description: string): JSONSchemaProps =>
  string(description, {
    minLength: 1,
    maxLength: LIMITS.tagKeyLength,
    pattern: TAG_CHARACTERS,
    'x-kubernetes-validations': [
      { rule: "!self.lowerAscii().startsWith('aws:')", message: 'tag keys starting with "aws:" are reserved by AWS' },
      TAG_KEY_TRIMMED,
      ...reservedTagKeyRules('key'),
    ],
  });

export const tagValue = (description: string): JSONSchemaProps =>
  string(description, { maxLength: LIMITS.tagValueLength, pattern: TAG_CHARACTERS });

export const resourceTags = (description: string): JSONSchemaProps =>
  array(
    description,
    named(
      'ResourceTag',
      object(
        'A tag to put on AWS resources.',
        {
          key: tagKey('The tag key (1-128 characters; letters, digits, spaces and `_ . : / = + - @`).'),
          value: tagValue('The tag value (0-256 characters, same characters as keys).'),
          overridePolicy: string(
            'Allow (default) lets a lower layer (account under global, cluster under account) set another value for this key. ' +
              'Deny enforces this value: a lower layer that sets the key is reported as a conflict and overruled.',
            { enum: ['Allow', 'Deny'], default: 'Allow' },
          ),
        },
        { required: ['key', 'value'] },
      ),
    ),
    { maxItems: LIMITS.tagsPerResource, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['key'] },
  );

/**
 * A cluster name as the ownership tag keys hold it. The schema takes every name EKS takes (maxLength
 * is EKS's), so that a longer EKS name meets a rule that says why it is refused and what to do.
 */
export const clusterName = (description: string, rules: readonly ValidationRule[] = []): JSONSchemaProps =>
  string(
    `${description} Any name EKS accepts (letters in either case, digits, - and _, a letter or digit first; CAPA ` +
      'names an EKS cluster <namespace>_<name> by default), or lower case with dots inside. Case matters: two names ' +
      `that differ only in case are two clusters. At most ${LIMITS.clusterNameLength} characters: ` +
      `the longest ownership tag key, sigs.k8s.io/cluster-api-provider-aws/cluster/<name>, must fit AWS's ` +
      `${LIMITS.tagKeyLength}-character tag keys; a longer EKS name (EKS allows ${LIMITS.eksClusterNameLength}) is refused.`,
    {
      minLength: 1,
      maxLength: LIMITS.eksClusterNameLength,
      pattern: CLUSTER_NAME,
      'x-kubernetes-validations': [
        {
          rule: `self.size() <= ${LIMITS.clusterNameLength}`,
          message:
            `clusterName is longer than ${LIMITS.clusterNameLength} characters, so the ownership tag key ` +
            `sigs.k8s.io/cluster-api-provider-aws/cluster/<name> would pass AWS's ${LIMITS.tagKeyLength}-character ` +
            `limit: give the cluster a name of at most ${LIMITS.clusterNameLength} characters (for EKS, ` +
            'AWSManagedControlPlane.spec.eksClusterName)',
        },
        ...rules,
      ],
    },
  );

export const region = (description: string): JSONSchemaProps => string(description, { pattern: REGION, maxLength: 32 });

// As Kubernetes validates a LabelSelector (ValidateLabelSelectorRequirement): an In or NotIn without
// values would match nothing or, for NotIn, every namespace; values beside Exists are a mistake.
const selectorOperatorRules = [
  {
    rule: "!(self.operator in ['In', 'NotIn']) || (has(self.values) && self.values.size() > 0)",
    message: "must be specified when `operator` is 'In' or 'NotIn'",
    reason: 'FieldValueRequired',
    fieldPath: '.values',
  },
  {
    rule: "!(self.operator in ['Exists', 'DoesNotExist']) || !has(self.values) || self.values.size() == 0",
    message: "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
    reason: 'FieldValueForbidden',
    fieldPath: '.values',
  },
] as const;

/** A label query (over namespaces, or AWSClusters), as Kubernetes writes one. */
export const labelSelector = named(
  'LabelSelector',
  object('A label query. The requirements of matchLabels and matchExpressions are ANDed.', {
    matchLabels: map('Labels that an object must carry with exactly these values.', string('A label value.')),
    matchExpressions: array(
      'Label requirements an object must meet.',
      named(
        'LabelSelectorRequirement',
        object(
          'A label requirement.',
          {
            key: string('The label key.', { minLength: 1, maxLength: 317 }),
            operator: string('How the key relates to the values.', {
              enum: ['In', 'NotIn', 'Exists', 'DoesNotExist'],
            }),
            values: array(
              'The values for In and NotIn (at least one); absent or empty for Exists and DoesNotExist.',
              string('A label value.'),
            ),
          },
          { required: ['key', 'operator'], 'x-kubernetes-validations': [...selectorOperatorRules] },
        ),
      ),
    ),
  }),
);

const namespaceList = array(
  'Names of namespaces allowed to use the identity.',
  string('A namespace name.', { pattern: DNS_LABEL, maxLength: 63 }),
  {
    'x-kubernetes-list-type': 'set',
  },
);

/** A set of namespaces (list and selector), as every field of this type reads it (docs/identity.md). */
const namespaces = (description: string): JSONSchemaProps =>
  named('AllowedNamespaces', object(description, { list: namespaceList, selector: labelSelector }));

export const allowedNamespaces = namespaces(
  'Which namespaces may use this identity. Absent: no namespace. `{}`: every namespace. Otherwise a namespace ' +
    'is allowed when it is in `list` or matches `selector`; a field that is present but empty (`list: []`, ' +
    '`selector: {}`) allows nothing through that field. Every link of an identity chain is checked.',
);

/**
 * Opt-in to AWSCredentialsRequest, apart from allowedNamespaces: a namespace that may act with an
 * identity for its clusters may not, by that alone, take its sessions into a Secret of its own.
 */
export const credentialVending = named(
  'CredentialVending',
  object(
    "Whether workloads may ask for this identity's credentials (AWSCredentialsRequest), and from which namespaces. " +
      'Absent: from none. A request is served only when its namespace passes both allowedNamespaces (every link of ' +
      'the chain) and credentialVending.allowedNamespaces. Never vended, whatever this says: an identity that is the ' +
      "sourceIdentityRef of another identity (a hub), and a web identity whose token is of the controller's namespace.",
    {
      allowedNamespaces: namespaces(
        "Which namespaces may ask for this identity's credentials, read as allowedNamespaces is: absent, no namespace; " +
          '`{}`, every namespace; otherwise those in `list` or matching `selector`.',
      ),
    },
  ),
);

export const identityRef = (description: string, constraints: { default?: unknown } = {}): JSONSchemaProps =>
  named(
    'IdentityReference',
    object(
      description,
      {
        kind: string('The kind of the identity.', { enum: IDENTITY_KINDS }),
        name: string('The name of the identity (identities are cluster-scoped).', {
          minLength: 1,
          maxLength: 253,
          pattern: DNS_SUBDOMAIN,
        }),
      },
      { required: ['kind', 'name'], ...constraints },
    ),
  );

/**
 * A cluster's identityRef: one of Keymaster's identities, or (apiGroup infrastructure.cluster.x-k8s.io)
 * one of CAPA's, read and never written, checked as Keymaster's are.
 */
export const clusterIdentityRef = (description: string, constraints: { default?: unknown } = {}): JSONSchemaProps =>
  named(
    'ClusterIdentityReference',
    object(
      description,
      {
        apiGroup: string(
          `Whose identity: Keymaster's (${GROUP}, the default) or Cluster API's AWS provider's ` +
            `(${CAPA_GROUP}: its AWSClusterControllerIdentity, AWSClusterRoleIdentity or AWSClusterStaticIdentity).`,
          { enum: [GROUP, CAPA_GROUP] },
        ),
        kind: string('The kind of the identity.', { enum: IDENTITY_KINDS }),
        name: string('The name of the identity (identities are cluster-scoped).', {
          minLength: 1,
          maxLength: 253,
          pattern: DNS_SUBDOMAIN,
        }),
      },
      {
        required: ['kind', 'name'],
        ...constraints,
        'x-kubernetes-validations': [
          {
            rule: `!has(self.apiGroup) || self.apiGroup != '${CAPA_GROUP}' || self.kind in [${CAPA_IDENTITY_KINDS.map((kind) => `'${kind}'`).join(', ')}]`,
            message: `${CAPA_GROUP} has only the kinds ${CAPA_IDENTITY_KINDS.join(', ')}: name one of them, or drop apiGroup for Keymaster's own kinds`,
            fieldPath: '.kind',
          },
        ],
      },
    ),
  );

export const conditions = array(
  "The latest observations of the object's state (metav1.Condition).",
  named(
    'Condition',
    object(
      "One aspect of the object's state.",
      {
        type: string('The condition type in CamelCase, e.g. Ready.', { minLength: 1, maxLength: 316 }),
        status: string('True, False or Unknown.', { enum: ['True', 'False', 'Unknown'] }),
        observedGeneration: integer('The metadata.generation the condition was set for.', { minimum: 0 }),
        lastTransitionTime: string('When the status last changed.', { format: 'date-time' }),
        reason: string('A CamelCase word for the last transition.', {
          minLength: 1,
          maxLength: 1024,
          pattern: CONDITION_REASON,
        }),
        message: string('What happened and what to do about it, for a person.', { maxLength: 32768 }),
      },
      { required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'] },
    ),
  ),
  { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] },
);

/** The tag layers, in authority order (docs/tagging.md). */
export const TAG_LAYERS = ['Global', 'Selected', 'Account', 'Cluster'] as const;

/** The layer of CAPA's own spec.additionalTags: Keymaster reads it and never writes its keys (docs/tagging.md). */
export const CLUSTER_API_LAYER = 'ClusterAPI';

export const observedGeneration = integer('The metadata.generation that the controller last acted on.', { minimum: 0 });

/** Where an effective tag (or a losing one) came from. */
export const tagSource = named(
  'TagSource',
  object(
    "One layer's claim on a tag key.",
    {
      layer: string(
        'The layer: Global (the AWSTagPolicy default), Selected (an AWSTagPolicy that selects the cluster by labels), ' +
          "Account (an identity), Cluster (the AWSCluster) or ClusterAPI (CAPA's spec.additionalTags, which CAPA " +
          'writes and Keymaster never does).',
        { enum: [...TAG_LAYERS, CLUSTER_API_LAYER] },
      ),
      object: string('The object that set it, as Kind/name (namespace/name for clusters).'),
      value: string('The value that layer asks for.'),
      overridePolicy: string('The overridePolicy of that claim.', { enum: ['Allow', 'Deny'] }),
    },
    { required: ['layer', 'object', 'value'] },
  ),
);
