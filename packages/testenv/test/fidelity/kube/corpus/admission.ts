import type { Sequence, Step } from '../sequence.js';
import { cluster, configMap, GROUP, PATHS, role, tenantBinding } from './objects.js';

/**
 * ValidatingAdmissionPolicies. kube-apiserver reads policies, bindings and namespace labels from its
 * informers and refreshes its policies every second: a step that needs one to act first polls a dry
 * run of a request the policy refuses (or warns about), as a client would; the emulator acts at once.
 * Every binding is limited to the sequence's namespace (or its policy to named objects), so that
 * nothing it leaves behind for a moment reaches later sequences.
 */

const POLICIES = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies';
const BINDINGS = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings';
const WEBHOOKS = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
const { configMaps, clusters } = PATHS;
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';

type Fields = Record<string, unknown>;

const policy = (name: string, spec: Fields): Fields => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicy',
  metadata: { name },
  spec,
});

const binding = (name: string, policyName: string, validationActions: string[], matchResources?: Fields): Fields => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicyBinding',
  metadata: { name },
  spec: { policyName, validationActions, ...(matchResources ? { matchResources } : {}) },
});

/** matchResources of a binding that acts in the sequence's namespace alone. */
const IN_NAMESPACE = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': '{ns}' } } };

const configMapRules = (operations: string[]): Fields[] => [
  { apiGroups: [''], apiVersions: ['v1'], operations, resources: ['configmaps'] },
];

/** A policy `{ns}-NAME` on configmaps with a Deny binding in the sequence's namespace (steps 0 and 1). */
const denying = (name: string, operations: string[], spec: Fields): Step[] => [
  {
    request: `POST ${POLICIES}`,
    body: policy(`{ns}-${name}`, { matchConstraints: { resourceRules: configMapRules(operations) }, ...spec }),
  },
  { request: `POST ${BINDINGS}`, body: binding(`{ns}-${name}`, `{ns}-${name}`, ['Deny'], IN_NAMESPACE) },
];

/** Cleanup of what `denying` (or a policy and binding of the same name) made. */
const cleanup = (...names: string[]): string[] =>
  names.flatMap((name) => [`${BINDINGS}/{ns}-${name}`, `${POLICIES}/{ns}-${name}`]);

/** A dry run repeated until the policy refuses it (with this status), as a client waits for a policy. */
const untilRefused = (request: string, body: unknown, status = 422, extra: Partial<Step> = {}): Step => ({
  request: `${request}${request.includes('?') ? '&' : '?'}dryRun=All`,
  body,
  until: status,
  ...extra,
});

/** The guarded namespace of the namespaces/status sequence with another tenancy label (and the phase its status needs). */
const relabelled = (tenancy: string): Fields => ({
  metadata: { name: '{ns}-guarded', labels: { tenancy } },
  status: { phase: 'Active' },
});

/** A webhook on configmaps in the sequence's namespace that nothing answers (port 1), and that must answer. */
const unreachableWebhook = (name: string, matchConditions: Fields[]): Fields => ({
  name,
  admissionReviewVersions: ['v1'],
  sideEffects: 'None',
  failurePolicy: 'Fail',
  clientConfig: { url: 'https://127.0.0.1:1/validate' },
  rules: configMapRules(['CREATE', 'UPDATE']),
  namespaceSelector: IN_NAMESPACE.namespaceSelector,
  matchConditions,
});

/** Acting as one of kube-controller-manager's service accounts (the admin may impersonate anyone). */
const asController = (controller: string): Record<string, string> => ({
  'Impersonate-User': `system:serviceaccount:kube-system:${controller}`,
});

export const admission: Sequence[] = [
  {
    name: 'admission: a policy and its binding, with kube-apiserver defaults, generation and columns',
    area: 'admission',
    steps: [
      {
        request: `POST ${POLICIES}`,
        body: policy('{ns}-defaults', {
          matchConstraints: {
            resourceRules: [
              { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] },
            ],
          },
          validations: [{ expression: 'object.metadata.name != "forbidden"', message: 'that name is taken' }],
          matchConditions: [{ name: 'labelled', expression: 'has(object.metadata.labels)' }],
          variables: [{ name: 'labels', expression: 'object.metadata.labels' }],
          auditAnnotations: [{ key: 'name', valueExpression: 'object.metadata.name' }],
        }),
      },
      { request: `GET ${POLICIES}/{ns}-defaults` },
      { request: `GET ${POLICIES}/{ns}-defaults`, accept: TABLE },
      {
        request: `PATCH ${POLICIES}/{ns}-defaults`,
        type: 'merge',
        body: { metadata: { labels: { team: 'a' } }, spec: { failurePolicy: 'Ignore' } },
      },
      {
        request: `PATCH ${POLICIES}/{ns}-defaults/status`,
        type: 'merge',
        body: { metadata: { labels: { team: 'b' } }, status: { observedGeneration: 2 } },
      },
      {
        request: `POST ${BINDINGS}`,
        body: binding('{ns}-defaults', '{ns}-defaults', ['Warn', 'Audit'], {
          objectSelector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['gold'] }] },
          resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }],
        }),
      },
      { request: `GET ${BINDINGS}/{ns}-defaults`, accept: TABLE },
      { request: `PATCH ${BINDINGS}/{ns}-defaults`, type: 'merge', body: { spec: { validationActions: ['Deny'] } } },
    ],
    cleanup: cleanup('defaults'),
  },
  {
    name: 'admission: policies and bindings that kube-apiserver refuses',
    area: 'admission',
    steps: [
      { request: `POST ${POLICIES}`, body: policy('{ns}-empty', {}) },
      {
        request: `POST ${POLICIES}`,
        body: policy('{ns}-bad', {
          failurePolicy: 'Sometimes',
          matchConstraints: {
            matchPolicy: 'Fuzzy',
            namespaceSelector: { matchExpressions: [{ key: 'team', operator: 'Near' }] },
            resourceRules: [
              { apiGroups: [], apiVersions: ['v1'], operations: ['*', 'CREATE'], resources: ['*', 'configmaps'] },
              {
                apiGroups: [''],
                apiVersions: ['v1'],
                operations: ['PATCH'],
                resources: ['*/*', 'pods'],
                scope: 'Galaxy',
              },
            ],
          },
          validations: [{ expression: 'true', message: ' ', reason: 'Teapot' }, { expression: ' ' }],
          variables: [{ name: 'not-an-identifier', expression: 'true' }],
          matchConditions: [{ name: '', expression: 'true' }],
        }),
      },
      { request: `POST ${BINDINGS}`, body: binding('{ns}-empty', '', []) },
      {
        request: `POST ${BINDINGS}`,
        body: {
          ...binding('{ns}-bad', 'Not_A_Name', ['Deny', 'Warn', 'Deny', 'Log']),
          spec: {
            policyName: 'Not_A_Name',
            validationActions: ['Deny', 'Warn', 'Deny', 'Log'],
            paramRef: { name: 'x', selector: {}, parameterNotFoundAction: 'Shrug' },
          },
        },
      },
    ],
  },
  {
    name: 'admission: expressions that do not compile are refused',
    area: 'admission',
    steps: [
      ...[
        'self.spec.replicas > 0',
        'object.metadata.name',
        'request.userInfo.nickname == "x"',
        'object.metadata.name ==',
      ].map((expression): Fields => ({ expression })),
      { expression: 'true', messageExpression: 'object.metadata.name == "x"' },
    ].map((validation): Step => ({
      request: `POST ${POLICIES}?dryRun=All`,
      body: policy('{ns}-broken', {
        matchConstraints: { resourceRules: configMapRules(['CREATE']) },
        validations: [validation],
      }),
    })),
  },
  {
    name: 'admission: Deny refuses with the validation message, messageExpression and reason',
    area: 'admission',
    steps: [
      ...denying('deny', ['CREATE', 'UPDATE', 'DELETE'], {
        validations: [
          {
            expression: 'request.operation == "DELETE" || object.data.tier in ["gold", "silver"]',
            messageExpression: '"tier " + object.data.tier + " is not offered to " + request.userInfo.username',
            reason: 'Forbidden',
          },
          {
            expression: 'request.operation != "DELETE" || !("keep" in oldObject.data)',
            message: 'configmaps marked keep stay',
          },
          { expression: 'request.operation != "UPDATE" || object.data.tier == oldObject.data.tier' },
        ],
      }),
      untilRefused(`POST ${configMaps}`, configMap('probe', { tier: 'bronze' }), 403),
      { request: `POST ${configMaps}`, body: configMap('gold', { tier: 'gold' }) },
      { request: `POST ${configMaps}`, body: configMap('bronze', { tier: 'bronze' }) },
      { request: `POST ${configMaps}`, body: configMap('empty', {}) },
      { request: `PATCH ${configMaps}/gold`, type: 'merge', body: { data: { tier: 'silver' } } },
      { request: `POST ${configMaps}`, body: configMap('kept', { tier: 'gold', keep: 'yes' }) },
      { request: `DELETE ${configMaps}/kept` },
      { request: `DELETE ${configMaps}/gold` },
    ],
    cleanup: cleanup('deny'),
  },
  {
    name: 'admission: Warn admits with a warning, Audit adds nothing',
    area: 'admission',
    steps: [
      {
        request: `POST ${POLICIES}`,
        body: policy('{ns}-warn', {
          matchConstraints: { resourceRules: configMapRules(['CREATE']) },
          validations: [{ expression: 'size(object.data) < 2', message: 'keep it small' }],
        }),
      },
      { request: `POST ${BINDINGS}`, body: binding('{ns}-warn', '{ns}-warn', ['Warn'], IN_NAMESPACE) },
      { request: `POST ${BINDINGS}`, body: binding('{ns}-audit', '{ns}-warn', ['Audit'], IN_NAMESPACE) },
      {
        request: `POST ${configMaps}?dryRun=All`,
        body: configMap('probe', { a: '1', b: '2' }),
        until: ({ warnings }) => warnings.length > 0,
      },
      { request: `POST ${configMaps}`, body: configMap('big', { a: '1', b: '2' }) },
      { request: `POST ${configMaps}`, body: configMap('small', { a: '1' }) },
    ],
    cleanup: [`${BINDINGS}/{ns}-audit`, ...cleanup('warn')],
  },
  {
    name: 'admission: matchConditions, variables and namespaceObject',
    area: 'admission',
    steps: [
      ...denying('variables', ['CREATE'], {
        matchConditions: [
          { name: 'not-exempt', expression: '!has(object.metadata.labels) || !("exempt" in object.metadata.labels)' },
        ],
        variables: [
          { name: 'tier', expression: 'has(object.data) && has(object.data.tier) ? object.data.tier : "none"' },
          { name: 'broken', expression: 'object.data.missing == "x"' },
        ],
        validations: [
          {
            expression: 'variables.tier != "none"',
            messageExpression: '"a tier is required in " + namespaceObject.metadata.name',
          },
          { expression: 'namespaceObject.metadata.name == request.namespace' },
          { expression: '!variables.broken' },
        ],
      }),
      untilRefused(`POST ${configMaps}`, configMap('probe', {})),
      { request: `POST ${configMaps}`, body: configMap('untiered', {}) },
      { request: `POST ${configMaps}`, body: configMap('tiered', { tier: 'gold' }) },
      { request: `POST ${configMaps}`, body: configMap('exempt', {}, { labels: { exempt: 'yes' } }) },
    ],
    cleanup: cleanup('variables'),
  },
  {
    name: 'admission: a rule naming a subresource matches it alone',
    area: 'admission',
    steps: [
      {
        request: `POST ${POLICIES}`,
        body: policy('{ns}-status', {
          matchConstraints: {
            resourceRules: [
              { apiGroups: [GROUP], apiVersions: ['*'], operations: ['UPDATE'], resources: ['awsclusters/status'] },
            ],
          },
          validations: [
            {
              expression: '!has(object.status.accountID) || object.status.accountID != "999999999999"',
              messageExpression: '"account 999999999999 is closed (" + request.subResource + ")"',
            },
          ],
        }),
      },
      { request: `POST ${BINDINGS}`, body: binding('{ns}-status', '{ns}-status', ['Deny'], IN_NAMESPACE) },
      { request: `POST ${clusters}`, body: cluster('subject') },
      untilRefused(`PATCH ${clusters}/subject/status`, { status: { accountID: '999999999999' } }, 422, {
        type: 'merge',
      }),
      { request: `PATCH ${clusters}/subject/status`, type: 'merge', body: { status: { accountID: '999999999999' } } },
      { request: `PATCH ${clusters}/subject/status`, type: 'merge', body: { status: { accountID: '123456789012' } } },
      {
        request: `PATCH ${clusters}/subject`,
        type: 'merge',
        body: { spec: { region: 'us-east-1' } },
        // Its managedFields entry and the status writer's, of one manager, are ordered by the second of
        // their times: one second or two, as the corpus's pace decides.
        pick: (body) => ({ spec: (body as { spec: unknown }).spec, status: (body as { status: unknown }).status }),
      },
    ],
    cleanup: cleanup('status'),
  },
  {
    name: "admission: namespaceSelector follows the namespace's labels",
    area: 'admission',
    steps: [
      {
        request: `POST ${POLICIES}`,
        body: policy('{ns}-guarded', {
          matchConstraints: { resourceRules: configMapRules(['CREATE']) },
          validations: [{ expression: 'object.metadata.name.startsWith("ok-")', message: 'names start with ok- here' }],
        }),
      },
      {
        request: `POST ${BINDINGS}`,
        body: binding('{ns}-guarded', '{ns}-guarded', ['Deny'], {
          namespaceSelector: {
            matchLabels: { 'kubernetes.io/metadata.name': '{ns}', 'fidelity.keymaster.dev/guarded': 'true' },
          },
        }),
      },
      { request: `POST ${configMaps}`, body: configMap('before') },
      {
        request: `PATCH ${PATHS.namespaces}/{ns}`,
        type: 'merge',
        body: { metadata: { labels: { 'fidelity.keymaster.dev/guarded': 'true' } } },
      },
      untilRefused(`POST ${configMaps}`, configMap('probe')),
      { request: `POST ${configMaps}`, body: configMap('guarded') },
      { request: `POST ${configMaps}`, body: configMap('ok-guarded') },
      {
        request: `PATCH ${PATHS.namespaces}/{ns}`,
        type: 'merge',
        body: { metadata: { labels: { 'fidelity.keymaster.dev/guarded': null } } },
      },
      { request: `POST ${configMaps}?dryRun=All`, body: configMap('probe'), until: 201 },
      { request: `POST ${configMaps}`, body: configMap('after') },
    ],
    cleanup: cleanup('guarded'),
  },
  {
    name: 'admission: a binding to a policy that does not exist yet',
    area: 'admission',
    steps: [
      { request: `POST ${BINDINGS}`, body: binding('{ns}-early', '{ns}-later', ['Deny'], IN_NAMESPACE) },
      { request: `POST ${configMaps}`, body: configMap('unguarded') },
      {
        request: `POST ${POLICIES}`,
        body: policy('{ns}-later', {
          matchConstraints: { resourceRules: configMapRules(['CREATE']) },
          validations: [{ expression: '!has(object.data)', message: 'configmaps carry no data here' }],
        }),
      },
      untilRefused(`POST ${configMaps}`, configMap('probe')),
      { request: `POST ${configMaps}`, body: configMap('guarded') },
    ],
    cleanup: [`${BINDINGS}/{ns}-early`, `${POLICIES}/{ns}-later`],
  },
  {
    name: 'admission: failurePolicy decides what an expression error does',
    area: 'admission',
    steps: [
      ...denying('failure', ['CREATE'], {
        failurePolicy: 'Ignore',
        validations: [
          { expression: 'object.data.missing == "x"' },
          { expression: 'object.metadata.name != "refused"', message: 'refused by name' },
        ],
      }),
      untilRefused(`POST ${configMaps}`, configMap('refused')),
      { request: `POST ${configMaps}`, body: configMap('erring') },
      { request: `PATCH ${POLICIES}/{ns}-failure`, type: 'merge', body: { spec: { failurePolicy: 'Fail' } } },
      {
        request: `POST ${configMaps}?dryRun=All`,
        body: configMap('probe'),
        until: ({ body }) => JSON.stringify(body).includes('resulted in error'),
      },
      { request: `POST ${configMaps}`, body: configMap('erring-again') },
    ],
    cleanup: cleanup('failure'),
  },
  {
    name: "admission: the garbage collector's deletes are admitted too",
    area: 'admission',
    steps: [
      ...denying('collector', ['DELETE'], {
        validations: [
          {
            expression:
              '!(oldObject.metadata.name == "protected" && request.userInfo.username.startsWith("system:serviceaccount:kube-system:"))',
            messageExpression: 'request.userInfo.username + " may not delete " + oldObject.metadata.name',
          },
        ],
      }),
      { request: `POST ${configMaps}`, body: configMap('owner') },
      {
        request: `POST ${configMaps}`,
        body: configMap(
          'protected',
          {},
          {
            ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: '{{2.metadata.uid}}' }],
          },
        ),
      },
      {
        request: `POST ${configMaps}`,
        body: configMap(
          'free',
          {},
          {
            ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: '{{2.metadata.uid}}' }],
          },
        ),
      },
      {
        request: `DELETE ${configMaps}/protected?dryRun=All`,
        headers: asController('generic-garbage-collector'),
        until: 422,
      },
      { request: `DELETE ${configMaps}/owner` },
      { request: `GET ${configMaps}/free`, until: 404 },
      { request: `GET ${configMaps}/protected` },
    ],
    cleanup: cleanup('collector'),
  },
  {
    name: "admission: the namespace controller's deletes are admitted too",
    area: 'admission',
    steps: [
      ...denying('content', ['DELETE'], {
        validations: [
          {
            expression:
              '!(oldObject.metadata.name == "kept" && request.userInfo.username == "system:serviceaccount:kube-system:namespace-controller")',
            messageExpression:
              'request.userInfo.username + " may not delete " + oldObject.metadata.name + " (named: " + string(has(request.name)) + ")"',
          },
        ],
      }),
      { request: `POST ${configMaps}`, body: configMap('kept') },
      { request: `POST ${configMaps}`, body: configMap('later') },
      {
        request: `DELETE ${configMaps}/kept?dryRun=All`,
        headers: asController('namespace-controller'),
        until: 422,
      },
      { request: 'DELETE /api/v1/namespaces/{ns}' },
      {
        request: 'GET /api/v1/namespaces/{ns}',
        until: ({ body }) => JSON.stringify(body).includes('ContentDeletionFailed'),
        pick: (body) => (body as { status: unknown }).status,
      },
      { request: `GET ${configMaps}/kept` },
      { request: `GET ${configMaps}/later` },
    ],
    cleanup: cleanup('content'),
  },
  {
    name: 'admission: a policy on namespaces/status and namespaces/finalize sees label changes there',
    area: 'admission',
    steps: [
      { request: `POST ${PATHS.namespaces}`, body: { metadata: { name: '{ns}-guarded', labels: { tenancy: 'a' } } } },
      {
        request: `POST ${POLICIES}`,
        body: policy('{ns}-tenancy', {
          matchConstraints: {
            resourceRules: [
              {
                apiGroups: [''],
                apiVersions: ['v1'],
                operations: ['UPDATE'],
                resources: ['namespaces/status', 'namespaces/finalize'],
                resourceNames: ['{ns}-guarded'],
              },
            ],
          },
          validations: [
            {
              expression: 'object.metadata.labels["tenancy"] == oldObject.metadata.labels["tenancy"]',
              messageExpression: '"the tenancy label may not change through " + request.subResource',
            },
          ],
        }),
      },
      { request: `POST ${BINDINGS}`, body: binding('{ns}-tenancy', '{ns}-tenancy', ['Deny']) },
      untilRefused(`PUT ${PATHS.namespaces}/{ns}-guarded/status`, relabelled('b')),
      { request: `PUT ${PATHS.namespaces}/{ns}-guarded/status`, body: relabelled('b') },
      {
        request: `PUT ${PATHS.namespaces}/{ns}-guarded/finalize`,
        body: { metadata: { name: '{ns}-guarded', labels: { tenancy: 'b' } }, spec: { finalizers: ['kubernetes'] } },
      },
      {
        request: `PATCH ${PATHS.namespaces}/{ns}-guarded`,
        type: 'merge',
        body: { metadata: { labels: { tenancy: 'b' } } },
      },
      {
        request: `PATCH ${PATHS.namespaces}/{ns}-guarded/status`,
        type: 'merge',
        body: { metadata: { labels: { team: 'x' } } },
      },
    ],
    cleanup: [...cleanup('tenancy'), `${PATHS.namespaces}/{ns}-guarded`],
  },
  {
    name: "admission: the authorizer asks RBAC, with RBAC's reasons",
    area: 'admission',
    steps: [
      {
        request: `POST ${PATHS.roles}`,
        body: role('writer', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create'] }]),
      },
      { request: `POST ${PATHS.roleBindings}`, body: tenantBinding('tenant-writes', 'writer') },
      ...denying('authorizer', ['CREATE'], {
        validations: [
          { expression: 'authorizer.requestResource.check("create").allowed()', message: 'the request is allowed' },
          {
            expression:
              'request.userInfo.username != "fidelity-tenant" || authorizer.group("").resource("configmaps").namespace(request.namespace).check("create").reason() == \'RBAC: allowed by RoleBinding "tenant-writes/{ns}" of Role "writer" to User "fidelity-tenant"\'',
            message: "RBAC's reason is another",
          },
          {
            expression: 'authorizer.group("").resource("secrets").namespace(request.namespace).check("get").allowed()',
            message: 'only those who may read secrets write configmaps here',
          },
        ],
      }),
      untilRefused(`POST ${configMaps}`, configMap('probe'), 422, { as: 'tenant' }),
      { request: `POST ${configMaps}`, as: 'tenant', body: configMap('by-tenant') },
      { request: `POST ${configMaps}`, body: configMap('by-admin') },
    ],
    cleanup: cleanup('authorizer'),
  },
  {
    name: "admission: a webhook's matchConditions decide whether it is called",
    area: 'admission',
    steps: [
      {
        request: `POST ${WEBHOOKS}`,
        body: {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'ValidatingWebhookConfiguration',
          metadata: { name: '{ns}-conditions' },
          webhooks: [
            unreachableWebhook('tier.fidelity.keymaster.dev', [
              { name: 'not-skipped', expression: '!has(object.data) || !("skip" in object.data)' },
            ]),
            unreachableWebhook('erring.fidelity.keymaster.dev', [
              { name: 'needs-missing', expression: 'request.operation == "UPDATE" && object.data.missing == "x"' },
            ]),
          ],
        },
      },
      // Called, and down: the refusal says so once kube-apiserver knows the configuration.
      { request: `POST ${configMaps}?dryRun=All`, body: configMap('probe'), until: 500 },
      { request: `POST ${configMaps}`, body: configMap('called') },
      { request: `POST ${configMaps}`, body: configMap('skipped', { skip: 'yes' }) },
      { request: `PUT ${configMaps}/skipped`, body: configMap('skipped', { skip: 'yes', more: 'data' }) },
    ],
    cleanup: [`${WEBHOOKS}/{ns}-conditions`],
  },
];
