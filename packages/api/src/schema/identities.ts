import {
  LIMITS,
  EXTERNAL_ID,
  POLICY_ARN,
  ROLE_ARN,
  ROLE_SESSION_NAME,
  DNS_SUBDOMAIN,
  ACCOUNT_ID,
  SECRET_KEY,
} from './patterns.js';
import {
  allowedNamespaces,
  conditions,
  credentialVending,
  identityRef,
  observedGeneration,
  resourceTags,
  tagKey,
  tagValue,
} from './fields.js';
import { array, integer, named, object, string } from './openapi.js';
import { AGE_COLUMN, type KindDefinition, type PrinterColumn } from './kind.js';
import { SINGLETON_NAME } from '../constants.js';
import { celKindsWith } from './identity-kinds.js';

const accountTags = resourceTags(
  'Account-level tags put on every resource of every cluster that uses this identity. In a chain, the link ' +
    'nearest the cluster wins for a key, unless a farther link says overridePolicy: Deny.',
);

const commonSpec = {
  allowedNamespaces,
  resourceTags: accountTags,
};

const identityStatus = named(
  'AWSClusterIdentityStatus',
  object(
    'What the controller observed about this identity. Counts only: every tenant may read identities, so status ' +
      "names no other tenant's cluster or namespace.",
    {
      conditions,
      observedGeneration,
      clusterCount: integer('How many AWSClusters use this identity, directly or through a chain.', { minimum: 0 }),
      namespaceCount: integer('How many namespaces those AWSClusters are in.', { minimum: 0 }),
      accountID: string('The AWS account of the credentials.', { pattern: ACCOUNT_ID }),
      principalARN: string('The caller ARN that STS GetCallerIdentity returned for the credentials.'),
      lastAssumeRoleTime: string('When the role was last assumed successfully (role and web identities).', {
        format: 'date-time',
      }),
    },
  ),
);

const identityColumns = [
  { name: 'Account', type: 'string', jsonPath: '.status.accountID', description: 'AWS account of the credentials.' },
  { name: 'Clusters', type: 'integer', jsonPath: '.status.clusterCount', description: 'AWSClusters using it.' },
  {
    name: 'Namespaces',
    type: 'integer',
    jsonPath: '.status.namespaceCount',
    description: 'Namespaces of those AWSClusters.',
  },
  { name: 'Principal', type: 'string', jsonPath: '.status.principalARN', description: 'Caller ARN.', priority: 1 },
] as const;

export const controllerIdentity: KindDefinition = {
  kind: 'AWSClusterControllerIdentity',
  plural: 'awsclustercontrolleridentities',
  singular: 'awsclustercontrolleridentity',
  shortNames: ['kmci'],
  scope: 'Cluster',
  description:
    "The controller's own AWS credentials (its default credential chain), offered to the namespaces in " +
    'allowedNamespaces. A singleton: the only valid name is "default".',
  spec: named('AWSClusterControllerIdentitySpec', object("Who may use the controller's own credentials.", commonSpec)),
  status: identityStatus,
  specRequired: true,
  rules: [
    {
      rule: `self.metadata.name == '${SINGLETON_NAME}'`,
      message: `AWSClusterControllerIdentity is a singleton: name it "${SINGLETON_NAME}"`,
      fieldPath: '.metadata.name',
    },
  ],
  printerColumns: [...identityColumns, AGE_COLUMN],
  clusterctlMove: 'move-hierarchy',
};

export const staticIdentity: KindDefinition = {
  kind: 'AWSClusterStaticIdentity',
  plural: 'awsclusterstaticidentities',
  singular: 'awsclusterstaticidentity',
  shortNames: ['kmsi'],
  scope: 'Cluster',
  description:
    "Long-lived AWS keys kept in a Secret in the controller's namespace (keys AccessKeyID, SecretAccessKey and " +
    'optional SessionToken, or aws_access_key_id and aws_secret_access_key).',
  spec: named(
    'AWSClusterStaticIdentitySpec',
    object(
      'The Secret holding the keys, and who may use them.',
      {
        secretRef: string(
          "Name of the Secret in the controller's namespace that holds the keys. Immutable: create a new identity to " +
            'use another Secret, or rotate the keys inside this one.',
          {
            minLength: 1,
            maxLength: 253,
            pattern: DNS_SUBDOMAIN,
            'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'secretRef is immutable' }],
          },
        ),
        ...commonSpec,
      },
      { required: ['secretRef'] },
    ),
  ),
  status: identityStatus,
  specRequired: true,
  printerColumns: [
    { name: 'Secret', type: 'string', jsonPath: '.spec.secretRef', description: 'Secret holding the keys.' },
    ...identityColumns,
    AGE_COLUMN,
  ],
  clusterctlMove: 'move-hierarchy',
};

const roleARN = string('ARN of the IAM role to assume.', { pattern: ROLE_ARN, maxLength: 2048 });

const sessionName = string(
  'RoleSessionName sent to STS (2-64 characters of letters, digits and `_+=,.@-`). Default: derived from the identity name.',
  {
    minLength: LIMITS.sessionNameLength[0],
    maxLength: LIMITS.sessionNameLength[1],
    pattern: ROLE_SESSION_NAME,
  },
);

const inlinePolicy = string("A session policy (JSON) that narrows the role's permissions.", {
  minLength: 1,
  maxLength: LIMITS.inlinePolicyLength,
});

const policyARNs = array(
  "ARNs of managed policies used as session policies (they narrow the role's permissions).",
  string('A managed policy ARN.', { pattern: POLICY_ARN, maxLength: 2048 }),
  { maxItems: LIMITS.policyArns, 'x-kubernetes-list-type': 'set' },
);

const chainedDurationRule = {
  rule:
    `!has(self.sourceIdentityRef) || !(self.sourceIdentityRef.kind in ${celKindsWith('roleSession')}) || ` +
    `!has(self.durationSeconds) || self.durationSeconds <= ${LIMITS.chainedDurationSeconds}`,
  message:
    `durationSeconds may be at most ${LIMITS.chainedDurationSeconds} when sourceIdentityRef is a role or web identity: AWS ` +
    "caps sessions of a role assumed with another role's session (role chaining)",
  fieldPath: '.durationSeconds',
};

const oneExternalIDRule = {
  rule: '!has(self.externalID) || !has(self.externalIDSecretRef)',
  message:
    'set externalIDSecretRef or externalID, not both: keep the externalID in the Secret only (externalID is readable ' +
    'by every tenant allowed to read identities)',
  fieldPath: '.externalIDSecretRef',
};

const transitiveKeysRule = {
  rule: '!has(self.transitiveTagKeys) || self.transitiveTagKeys.all(k, has(self.sessionTags) && self.sessionTags.exists(t, t.key == k))',
  message: 'every transitiveTagKeys entry must be the key of one of sessionTags',
  fieldPath: '.transitiveTagKeys',
};

export const roleIdentity: KindDefinition = {
  kind: 'AWSClusterRoleIdentity',
  plural: 'awsclusterroleidentities',
  singular: 'awsclusterroleidentity',
  shortNames: ['kmri'],
  scope: 'Cluster',
  description:
    'An IAM role assumed with STS AssumeRole on top of the credentials of sourceIdentityRef (default: the ' +
    'controller identity "default"). Chains of roles are allowed.',
  spec: named(
    'AWSClusterRoleIdentitySpec',
    object(
      'The role to assume, how, and who may use it.',
      {
        roleARN,
        sessionName,
        durationSeconds: integer(
          "Session length in seconds (900-43200, and at most the role's maximum session duration; at most 3600 when " +
            'the source is a role or web identity). Default: 3600.',
          { minimum: LIMITS.durationSeconds[0], maximum: LIMITS.durationSeconds[1] },
        ),
        inlinePolicy,
        policyARNs,
        externalID: string(
          'Deprecated: use externalIDSecretRef. The ExternalId sent to STS, in the spec, where every tenant allowed ' +
            'to read identities reads it (with a principal the role trusts, it is all they need to assume the role). ' +
            'Kept for compatibility, with an admission warning and the condition ExternalIDConfidential False.',
          { minLength: LIMITS.externalIdLength[0], maxLength: LIMITS.externalIdLength[1], pattern: EXTERNAL_ID },
        ),
        externalIDSecretRef: named(
          'ExternalIDSecretReference',
          object(
            "Where the ExternalId sent to STS is kept: a key of a Secret in the controller's namespace, which tenants " +
              "cannot read. The role's trust policy should require it (sts:ExternalId, confused-deputy protection). " +
              'Editable: a new Secret, key or value is used from the next reconcile, with a new session.',
            {
              name: string("The name of the Secret in the controller's namespace.", {
                minLength: 1,
                maxLength: 253,
                pattern: DNS_SUBDOMAIN,
              }),
              key: string(
                "The key of the Secret's data whose value is the externalID (2-1224 characters of letters, digits and `_+=,.@:/-`).",
                { minLength: 1, maxLength: 253, pattern: SECRET_KEY },
              ),
            },
            { required: ['name', 'key'] },
          ),
        ),
        sourceIdentityRef: identityRef(
          'The identity whose credentials assume this role. Default: the controller identity "default".',
        ),
        sessionTags: array(
          'Session tags passed to AssumeRole.',
          named(
            'SessionTag',
            object(
              'A session tag.',
              { key: tagKey('The session tag key.'), value: tagValue('The session tag value.') },
              { required: ['key', 'value'] },
            ),
          ),
          { maxItems: 50, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['key'] },
        ),
        transitiveTagKeys: array(
          'Keys of sessionTags that persist into sessions chained from this one.',
          string('A session tag key.', { minLength: 1, maxLength: 128 }),
          { maxItems: 50, 'x-kubernetes-list-type': 'set' },
        ),
        ...commonSpec,
        credentialVending,
      },
      {
        required: ['roleARN'],
        'x-kubernetes-validations': [chainedDurationRule, oneExternalIDRule, transitiveKeysRule],
      },
    ),
  ),
  status: identityStatus,
  specRequired: true,
  printerColumns: [
    { name: 'Role', type: 'string', jsonPath: '.spec.roleARN', description: 'IAM role assumed.' },
    { name: 'Source', type: 'string', jsonPath: '.spec.sourceIdentityRef.name', description: 'Source identity.' },
    ...identityColumns,
    AGE_COLUMN,
  ],
  clusterctlMove: 'move-hierarchy',
};

// What the kinds whose role is assumed with a ServiceAccount token share (web and ServiceAccount identities).
const audience = string(
  'The audience of the ServiceAccount token: a client ID of the IAM OIDC identity provider of the cluster issuer.',
  { minLength: 1, maxLength: 253, default: 'sts.amazonaws.com' },
);

const tokenRoleDuration = integer(
  "Session length in seconds (900-43200, and at most the role's maximum session duration). Default: 3600.",
  { minimum: LIMITS.durationSeconds[0], maximum: LIMITS.durationSeconds[1] },
);

/** The role, the ServiceAccount at `serviceAccountPath`, the identity's columns and its age. */
const tokenRoleColumns = (serviceAccountPath: string): PrinterColumn[] => [
  { name: 'Role', type: 'string', jsonPath: '.spec.roleARN', description: 'IAM role assumed.' },
  {
    name: 'ServiceAccount',
    type: 'string',
    jsonPath: serviceAccountPath,
    description: 'ServiceAccount whose token assumes the role.',
  },
  ...identityColumns,
  AGE_COLUMN,
];

export const webIdentity: KindDefinition = {
  kind: 'AWSClusterWebIdentity',
  plural: 'awsclusterwebidentities',
  singular: 'awsclusterwebidentity',
  shortNames: ['kmwi'],
  scope: 'Cluster',
  description:
    'An IAM role assumed with STS AssumeRoleWithWebIdentity, with a token the controller requests (TokenRequest) ' +
    "for a ServiceAccount of the AWSCluster's own namespace: the role's trust policy can require that namespace's " +
    'subject, so that AWS itself refuses every other namespace. Chains may start from it.',
  spec: named(
    'AWSClusterWebIdentitySpec',
    object(
      'The role, the ServiceAccount whose token assumes it, and who may use it.',
      {
        roleARN,
        audience,
        serviceAccount: named(
          'WebIdentityServiceAccount',
          object(
            'The ServiceAccount the controller requests a token for.',
            {
              name: string('The name of the ServiceAccount.', {
                minLength: 1,
                maxLength: 253,
                pattern: DNS_SUBDOMAIN,
              }),
              namespace: string(
                'Where the ServiceAccount is: Cluster, the namespace of each AWSCluster that uses the identity (its trust ' +
                  "policy then names each tenant's subject), or Controller, the controller's namespace (one subject for " +
                  'a platform-wide identity).',
                { enum: ['Cluster', 'Controller'], default: 'Cluster' },
              ),
            },
            { required: ['name'] },
          ),
        ),
        sessionName,
        durationSeconds: tokenRoleDuration,
        inlinePolicy,
        policyARNs,
        ...commonSpec,
        credentialVending,
      },
      { required: ['roleARN', 'serviceAccount'] },
    ),
  ),
  status: identityStatus,
  specRequired: true,
  printerColumns: tokenRoleColumns('.spec.serviceAccount.name'),
  clusterctlMove: 'move-hierarchy',
  controllerRules: [
    {
      apiGroups: [''],
      resources: ['serviceaccounts/token'],
      verbs: ['create'],
      why: 'tokens for the ServiceAccount it names, in each namespace it serves, and for the ServiceAccount an AWSServiceAccountIdentity names in its own namespace (TokenRequest; no other verb on ServiceAccounts, no Secret). To narrow it, drop this rule and grant it by a RoleBinding in each tenant namespace (docs/security.md).',
    },
  ],
};

export const serviceAccountIdentity: KindDefinition = {
  kind: 'AWSServiceAccountIdentity',
  plural: 'awsserviceaccountidentities',
  singular: 'awsserviceaccountidentity',
  shortNames: ['kmsai'],
  scope: 'Namespaced',
  description:
    'An IAM role assumed with STS AssumeRoleWithWebIdentity, with a token the controller requests (TokenRequest) ' +
    "for a ServiceAccount of this identity's own namespace. Tenants may write it: only AWSClusters and " +
    "AWSCredentialsRequests of its namespace can name it, the token's subject names that namespace, and the " +
    "role's trust policy (the tenant's, on AWS) decides. Chains may start from it.",
  spec: named(
    'AWSServiceAccountIdentitySpec',
    object(
      'The role, and the ServiceAccount of this namespace whose token assumes it.',
      {
        roleARN,
        audience,
        serviceAccountName: string(
          "The name of the ServiceAccount, in this identity's namespace (there is no other): the token's subject is " +
            'system:serviceaccount:<this namespace>:<serviceAccountName>.',
          { minLength: 1, maxLength: 253, pattern: DNS_SUBDOMAIN },
        ),
        sessionName,
        durationSeconds: tokenRoleDuration,
        inlinePolicy,
        policyARNs,
        resourceTags: accountTags,
        credentialVending,
      },
      { required: ['roleARN', 'serviceAccountName'] },
    ),
  ),
  status: identityStatus,
  specRequired: true,
  printerColumns: tokenRoleColumns('.spec.serviceAccountName'),
  clusterctlMove: 'move',
};

/** Every identity kind's definition, in the order of IDENTITY_KINDS. */
export const IDENTITY_DEFINITIONS: readonly KindDefinition[] = [
  controllerIdentity,
  staticIdentity,
  roleIdentity,
  webIdentity,
  serviceAccountIdentity,
];
