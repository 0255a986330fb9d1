import { expect } from 'chai';
import type { AWSCredentialsRequestSpec, IdentityReference } from '@keymaster/api';
import { resolveChain } from '../src/chain.js';
import {
  checkChain,
  ControllerNamespaceTokenNotVendableError,
  IdentityResolver,
  PassthroughRefusedError,
  SourceIdentityNotVendableError,
  VendingNamespaceNotAllowedError,
  VendingNotEnabledError,
  VendingRefusedError,
  vendingProblems,
  type IdentityObject,
} from '../src/index.js';
import { controller, identity, keys, memoryStore, role, staticIdentity } from './fixtures.js';

const ROLE = 'AWSClusterRoleIdentity' as const;
const WEB = 'AWSClusterWebIdentity' as const;
const NAMESPACE = { name: 'tenant-a', labels: { 'keymaster.dev/tenant': 'tenant-a' } };

const web = (name: string, fields: Record<string, unknown> = {}) =>
  identity(WEB, name, {
    roleARN: `arn:aws:iam::222222222222:role/${name}`,
    serviceAccount: { name: 'reports' },
    allowedNamespaces: {},
    ...fields,
  });
const vendsTo = (allowedNamespaces: object) => ({ credentialVending: { allowedNamespaces } });
const sourcedFrom = (name: string, source: IdentityReference) => role(name, { sourceIdentityRef: source });

interface Row {
  rule: string;
  /** The request's own identity first, then the other identities that exist. */
  identities: IdentityObject[];
  /** The class of each problem, in order; none: the session may be vended. */
  refused: (new (...args: never[]) => Error)[];
  reason?: string;
}

/** Every rule of the vending check, with the identities that exist beside the request's own. */
const ROWS: Row[] = [
  { rule: 'vends to a namespace listed', identities: [role('r', vendsTo({ list: ['tenant-a'] }))], refused: [] },
  { rule: 'vends to every namespace with {}', identities: [role('r', vendsTo({}))], refused: [] },
  {
    rule: 'vends to a namespace its selector matches',
    identities: [role('r', vendsTo({ selector: { matchLabels: { 'keymaster.dev/tenant': 'tenant-a' } } }))],
    refused: [],
  },
  { rule: 'vends a web identity of the namespace (Cluster)', identities: [web('w', vendsTo({}))], refused: [] },
  {
    rule: 'no credentialVending: vends to no namespace',
    identities: [role('r')],
    refused: [VendingNotEnabledError],
    reason: 'VendingNotEnabled',
  },
  {
    rule: 'credentialVending null: vends to no namespace',
    identities: [role('r', { credentialVending: null } as never)],
    refused: [VendingNotEnabledError],
  },
  {
    rule: 'credentialVending without allowedNamespaces: no namespace',
    identities: [role('r', { credentialVending: {} })],
    refused: [VendingNamespaceNotAllowedError],
    reason: 'VendingNamespaceNotAllowed',
  },
  {
    rule: 'a list without the namespace',
    identities: [role('r', vendsTo({ list: ['tenant-b'] }))],
    refused: [VendingNamespaceNotAllowedError],
  },
  {
    rule: 'an empty selector allows nothing',
    identities: [role('r', vendsTo({ selector: {} }))],
    refused: [VendingNamespaceNotAllowedError],
  },
  {
    rule: 'a hub (the source of another identity) is never vended, credentialVending or not',
    identities: [role('hub', vendsTo({})), sourcedFrom('tenant-b', { kind: ROLE, name: 'hub' })],
    refused: [SourceIdentityNotVendableError],
    reason: 'SourceIdentityNotVendable',
  },
  {
    rule: 'a hub without credentialVending is refused as a hub, not as not enabled',
    identities: [role('hub'), sourcedFrom('tenant-b', { kind: ROLE, name: 'hub' })],
    refused: [SourceIdentityNotVendableError],
  },
  {
    rule: 'a web identity that is the source of a role is never vended',
    identities: [web('w', vendsTo({})), sourcedFrom('hop', { kind: WEB, name: 'w' })],
    refused: [SourceIdentityNotVendableError],
  },
  {
    rule: "a web identity whose token is of the controller's namespace is never vended",
    identities: [web('platform', { serviceAccount: { name: 'keymaster', namespace: 'Controller' }, ...vendsTo({}) })],
    refused: [ControllerNamespaceTokenNotVendableError],
    reason: 'ControllerNamespaceTokenNotVendable',
  },
  {
    rule: 'a platform web identity that is also a hub: both rules',
    identities: [
      web('platform', { serviceAccount: { name: 'keymaster', namespace: 'Controller' }, ...vendsTo({}) }),
      sourcedFrom('hop', { kind: WEB, name: 'platform' }),
    ],
    refused: [ControllerNamespaceTokenNotVendableError, SourceIdentityNotVendableError],
  },
  {
    rule: 'the controller identity: its own credentials take no session policy (passthrough)',
    identities: [controller()],
    refused: [PassthroughRefusedError],
    reason: 'PassthroughRefused',
  },
  {
    rule: 'static keys: long-lived, no session policy (passthrough)',
    identities: [staticIdentity('s', 'keys')],
    refused: [PassthroughRefusedError],
  },
];

const linkOf = (object: IdentityObject) => ({ kind: object.kind, name: object.metadata.name!, identity: object });
const refOf = (object: IdentityObject) => ({ kind: object.kind, name: object.metadata.name! });

describe('vendingProblems: whether an AWSCredentialsRequest may have its identity’s session', () => {
  for (const { rule, identities, refused, reason } of ROWS) {
    it(rule, () => {
      const problems = vendingProblems(
        { ...linkOf(identities[0]!), material: { secretAccessKey: 'never-in-an-error' } },
        NAMESPACE,
        identities,
      );
      expect(problems.map((problem) => problem.constructor)).to.deep.equal(refused);
      if (reason) expect(problems[0]!.reason).to.equal(reason);
      for (const problem of problems) {
        expect(problem.message, 'names the identity').to.contain(
          `${identities[0]!.kind}/${identities[0]!.metadata.name}`,
        );
        expect(problem.hint, 'says what to change').to.be.a('string').and.not.equal('');
        // Kind and name only: a link also carries what was loaded for it (a static identity's keys).
        expect(problem.link).to.deep.equal(refOf(identities[0]!));
        // The never-vendable rules and the opt-in are usage refusals; passthrough stays a retrieval refusal.
        expect(problem instanceof VendingRefusedError).to.equal(!(problem instanceof PassthroughRefusedError));
      }
    });
  }

  it('names the namespace and the field ops must change', () => {
    const [notEnabled] = vendingProblems(linkOf(role('r')), NAMESPACE, []);
    expect(`${notEnabled!.message}. ${notEnabled!.hint}`).to.equal(
      'AWSClusterRoleIdentity/r vends no credentials to workloads: its spec.credentialVending is not set. For ' +
        'namespace "tenant-a" to ask for its credentials, ops add it to spec.credentialVending.allowedNamespaces of ' +
        'AWSClusterRoleIdentity/r (credentialVending: {allowedNamespaces: {list: [tenant-a]}}, or a selector); or ' +
        'point spec.identityRef at an identity that vends to "tenant-a".',
    );
    const [elsewhere] = vendingProblems(linkOf(role('r', vendsTo({ list: ['tenant-b'] }))), NAMESPACE, []);
    expect(elsewhere!.message).to.contain(
      'namespace "tenant-a" may not ask for credentials of AWSClusterRoleIdentity/r',
    );
    expect(elsewhere!.hint).to.contain('add "tenant-a" to spec.credentialVending.allowedNamespaces');
  });
});

/** Every refused row, through both ways a request is resolved: Session mode, and WebIdentity mode's check. */
describe('the vending check in every mode, before any STS call', () => {
  const session = (identityRef: IdentityReference): AWSCredentialsRequestSpec => ({
    identityRef,
    statements: [{ effect: 'Allow', actions: ['tag:GetResources'], resources: ['*'] }],
    secretRef: { name: 'aws' },
  });

  for (const { rule, identities, refused } of ROWS.filter((row) => row.refused.length > 0)) {
    it(rule, async () => {
      let asked = 0;
      const { store } = memoryStore(
        [controller(), ...identities],
        { 'keymaster-system/keys': keys('AKIAIOSFODNN7EXAMPLE') },
        [NAMESPACE],
      );
      const resolver = new IdentityResolver({
        store,
        controllerNamespace: 'keymaster-system',
        controllerCredentials: () => {
          asked += 1;
          return Promise.reject(new Error('no STS call may be made for a refused request'));
        },
        serviceAccountTokens: {
          request: () => {
            asked += 1;
            return Promise.reject(new Error('no token may be requested for a refused request'));
          },
        },
        aws: { endpoint: 'http://127.0.0.1:9' },
      });
      const ref = refOf(identities[0]!);
      const modes = {
        Session: resolver.resolveNarrowed({ namespace: 'tenant-a', spec: session(ref) }),
        WebIdentity: resolver.resolve({
          namespace: 'tenant-a',
          identityRef: ref,
          region: 'us-east-1',
          requester: 'AWSCredentialsRequest',
          vending: true,
        }),
      };
      for (const [mode, resolving] of Object.entries(modes)) {
        const error = await resolving.then(
          () => expect.fail(`${mode}: served`),
          (caught: unknown) => caught,
        );
        expect(error, mode).to.be.instanceOf(refused[0]!);
      }
      expect(asked, 'credentials or tokens asked for').to.equal(0);
      // What the webhooks show: the same refusals, on the request's own identity.
      const [own] = await checkChain(store, {
        namespace: 'tenant-a',
        identityRef: ref,
        controllerNamespace: 'keymaster-system',
        vending: true,
      });
      expect(own!.problems.map((problem) => problem.constructor)).to.deep.equal(refused);
      // Clusters are not vended to: the same chain serves them as before.
      const links = await resolveChain(store, {
        namespace: 'tenant-a',
        identityRef: ref,
        controllerNamespace: 'keymaster-system',
      });
      expect(links[0]).to.include(ref);
    });
  }
});
