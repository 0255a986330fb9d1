import { ACCOUNT_ID, DNS_SUBDOMAIN, IAM_ACTION, IAM_RESOURCE, LIMITS, POLICY_ARN } from './patterns.js';
import { conditions, identityRef, observedGeneration } from './fields.js';
import { array, integer, map, named, object, string } from './openapi.js';
import { AGE_COLUMN, type KindDefinition } from './kind.js';
import { celKindsWith } from './identity-kinds.js';

// IAM's JSON names each field in PascalCase and singular (Effect, Action, Resource, Condition); our
// CRDs are camelCase and lists are plural, so statements map field by field (docs/credentials.md).
const statement = named(
  'PolicyStatement',
  object(
    'One IAM policy statement, sent in the session policy as {"Sid", "Effect", "Action", "Resource", "Condition"}.',
    {
      sid: string('Sid: an optional name for the statement (letters and digits).', {
        maxLength: 128,
        pattern: '^[A-Za-z0-9]*$',
      }),
      effect: string('Effect: Allow or Deny.', { enum: ['Allow', 'Deny'] }),
      actions: array(
        'Action: IAM actions as service:Action, wildcards * and ? allowed (e.g. tag:GetResources, s3:Get*).',
        string('An IAM action.', { maxLength: 256, pattern: IAM_ACTION }),
        { minItems: 1, maxItems: 100, 'x-kubernetes-list-type': 'set' },
      ),
      resources: array(
        'Resource: ARNs (wildcards allowed) or * for every resource.',
        string('A resource ARN or *.', { maxLength: 2048, pattern: IAM_RESOURCE }),
        { minItems: 1, maxItems: 100, 'x-kubernetes-list-type': 'set' },
      ),
      // No CEL here: map keys take no maxLength, so a rule over them costs more than the API server's
      // budget allows; checkCredentialsRequest checks the operators' names.
      condition: map(
        'Condition: operator (e.g. StringEquals, ForAnyValue:StringLike) -> condition key -> values.',
        map(
          'Condition keys of one operator.',
          array('The values (any one matches).', string('A value.', { maxLength: 1024 }), { maxItems: 50 }),
          { minProperties: 1, maxProperties: 20 },
        ),
        { maxProperties: 20 },
      ),
    },
    { required: ['effect', 'actions', 'resources'] },
  ),
);

// The API server defaults mode before CEL runs; `has` keeps the rules right for objects checked without defaults.
const WEB_IDENTITY = "(has(self.mode) && self.mode == 'WebIdentity')";

export const credentialsRequest: KindDefinition = {
  kind: 'AWSCredentialsRequest',
  plural: 'awscredentialsrequests',
  singular: 'awscredentialsrequest',
  shortNames: ['kmcr'],
  scope: 'Namespaced',
  description:
    "AWS credentials for workloads of this namespace, written to a Secret of this namespace that the request owns: a role session of identityRef narrowed by the request's session policy (Session mode) or an AWS config for pods that assume the role with their own ServiceAccount token (WebIdentity mode). Never long-lived keys: no passthrough, no minted IAM users (docs/credentials.md).",
  spec: named(
    'AWSCredentialsRequestSpec',
    object(
      'Which identity, what the credentials may do, and where and how they are written.',
      {
        identityRef: identityRef(
          'The identity whose role the credentials are a session of. Every link of its chain must allow this namespace. ' +
            'Session mode: a role or web identity (a session policy can narrow only a role session). WebIdentity mode: an ' +
            'AWSClusterWebIdentity whose serviceAccount is in the namespace using it (Cluster).',
        ),
        statements: array(
          "Session policy statements: the credentials may do only what these allow AND the identity's role allows.",
          statement,
          { maxItems: 50 },
        ),
        policyARNs: array(
          'Managed policies used as session policies (PolicyArns), besides statements.',
          string('A managed policy ARN.', { pattern: POLICY_ARN, maxLength: 2048 }),
          { maxItems: LIMITS.policyArns, 'x-kubernetes-list-type': 'set' },
        ),
        durationSeconds: integer(
          "Session mode: lifetime of each credential set (900-43200, at most the role's maximum session duration, at most " +
            '3600 when the role is assumed with another role session). Default: 3600.',
          { minimum: LIMITS.durationSeconds[0], maximum: LIMITS.durationSeconds[1] },
        ),
        renewAtPercent: integer(
          'Session mode: renew the credentials when this share of their lifetime has passed (10-90), but never sooner than ' +
            "the controller's --min-renewal-interval (default 5 minutes) after they were obtained. Default: 50.",
          { minimum: 10, maximum: 90 },
        ),
        secretRef: named(
          'CredentialsSecretReference',
          object(
            'The Secret to write, in the namespace of the request (there is no namespace field: never another one).',
            {
              name: string(
                'The name of the Secret. The request creates and owns it; it never takes over an existing one.',
                {
                  minLength: 1,
                  maxLength: 253,
                  pattern: DNS_SUBDOMAIN,
                },
              ),
            },
            {
              required: ['name'],
              'x-kubernetes-validations': [
                { rule: 'self.name == oldSelf.name', message: 'secretRef.name is immutable: create another request' },
              ],
            },
          ),
        ),
        format: string(
          'The keys of the Secret. Environment (default): AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN ' +
            '(WebIdentity: AWS_ROLE_ARN, AWS_WEB_IDENTITY_TOKEN_FILE, AWS_ROLE_SESSION_NAME), for envFrom. CredentialsFile: one ' +
            'key, `credentials`, an AWS shared credentials file (WebIdentity: `config`, an AWS config file). ' +
            "CloudCredentialOperator: as OpenShift's CCO writes them: aws_access_key_id, aws_secret_access_key (and " +
            'aws_session_token) plus `credentials` (WebIdentity: `credentials` with role_arn and web_identity_token_file).',
          { enum: ['Environment', 'CredentialsFile', 'CloudCredentialOperator'] },
        ),
        mode: string(
          'Session (default): short-lived keys written to the Secret and renewed. WebIdentity: no secret material; the ' +
            "Secret holds the role ARN and the token path for pods that mount a projected ServiceAccount token (CCO's STS mode).",
          {
            enum: ['Session', 'WebIdentity'],
            default: 'Session',
            'x-kubernetes-validations': [
              { rule: 'self == oldSelf', message: 'mode is immutable: create another request' },
            ],
          },
        ),
      },
      {
        required: ['identityRef', 'secretRef'],
        'x-kubernetes-validations': [
          {
            rule: `${WEB_IDENTITY} || has(self.statements) || has(self.policyARNs)`,
            message:
              "Session mode needs statements or policyARNs: the credentials get only what they allow (least privilege); a request for the identity's whole role would be passthrough",
          },
          {
            rule: `${WEB_IDENTITY} || self.identityRef.kind in ${celKindsWith('roleSession')}`,
            message:
              'Session mode needs a role or web identity: the keys of the controller identity or of a static identity cannot be narrowed by a session policy, and handing them out would be passthrough',
            fieldPath: '.identityRef.kind',
          },
          {
            rule: `!${WEB_IDENTITY} || self.identityRef.kind in ${celKindsWith('workloadWebIdentity')}`,
            message:
              'WebIdentity mode needs an AWSClusterWebIdentity: pods assume its role with their own ServiceAccount token',
            fieldPath: '.identityRef.kind',
          },
          {
            rule: `!${WEB_IDENTITY} || (!has(self.statements) && !has(self.policyARNs) && !has(self.durationSeconds) && !has(self.renewAtPercent))`,
            message:
              'WebIdentity mode takes no statements, policyARNs, durationSeconds or renewAtPercent: pods assume the role themselves (an AWS config cannot carry a session policy); use Session mode to narrow',
          },
        ],
      },
    ),
  ),
  status: named(
    'AWSCredentialsRequestStatus',
    object('What the controller observed and wrote.', {
      conditions,
      observedGeneration,
      principalARN: string('The caller ARN of the credentials (the role session).'),
      accountID: string('The AWS account of the credentials.', { pattern: ACCOUNT_ID }),
      expiration: string('When the credentials in the Secret expire (Session mode).', { format: 'date-time' }),
      lastRenewalTime: string('When the credentials in the Secret were last obtained.', { format: 'date-time' }),
      nextRenewalTime: string('When the controller renews them.', { format: 'date-time' }),
    }),
  ),
  specRequired: true,
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
      description: "The Ready condition's reason.",
    },
    { name: 'Secret', type: 'string', jsonPath: '.spec.secretRef.name', description: 'The Secret written.' },
    { name: 'Expires', type: 'date', jsonPath: '.status.expiration', description: 'When the credentials expire.' },
    AGE_COLUMN,
    { name: 'Mode', type: 'string', jsonPath: '.spec.mode', description: 'Session or WebIdentity.', priority: 1 },
    {
      name: 'Identity',
      type: 'string',
      jsonPath: '.spec.identityRef.name',
      description: 'The identity used.',
      priority: 1,
    },
    { name: 'Account', type: 'string', jsonPath: '.status.accountID', description: 'AWS account.', priority: 1 },
  ],
  clusterctlMove: 'move',
};
