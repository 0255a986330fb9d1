import { type AllowedNamespaces, type CapaEmptySelector } from '@keymaster/api';

/** CAPA's group, as a reference's apiGroup types it. */
const CAPA_GROUP = 'infrastructure.cluster.x-k8s.io' as const;
import { expect } from 'chai';
import { resolveChain } from '../src/chain.js';
import {
  CAPA_API_VERSION,
  capaIdentity,
  chainReach,
  identityId,
  NamespaceNotAllowedError,
  vendingProblems,
  VendingNotEnabledError,
  type IdentityObject,
} from '../src/index.js';
import { controller, keys, memoryStore, role } from './fixtures.js';

const NONE = { emptySelector: 'none', namespace: 'capa-system' } as const;

/** One of CAPA's identities as the API server serves it. */
const capaObject = (kind: string, name: string, spec: Record<string, unknown>) => ({
  apiVersion: CAPA_API_VERSION,
  kind,
  metadata: { name, uid: `capa-${kind}-${name}` },
  spec,
});

const capaRole = (name: string, spec: Record<string, unknown>, mode: CapaEmptySelector = 'none') =>
  capaIdentity(
    capaObject('AWSClusterRoleIdentity', name, { roleARN: `arn:aws:iam::333333333333:role/${name}`, ...spec }),
    { ...NONE, emptySelector: mode },
  )!;
const capaController = (allowedNamespaces: unknown, mode: CapaEmptySelector = 'none') =>
  capaIdentity(capaObject('AWSClusterControllerIdentity', 'default', { allowedNamespaces }), {
    ...NONE,
    emptySelector: mode,
  })!;

const allowedOf = (identity: IdentityObject) =>
  (identity.spec as { allowedNamespaces?: AllowedNamespaces }).allowedNamespaces;

describe("CAPA's identities (capaIdentity)", () => {
  const cases: {
    what: string;
    capa: unknown;
    none: AllowedNamespaces | undefined;
    all: AllowedNamespaces | undefined;
  }[] = [
    { what: 'absent: no namespace, as in CAPA', capa: undefined, none: undefined, all: undefined },
    { what: 'null: no namespace', capa: null, none: undefined, all: undefined },
    { what: '{}: every namespace in both', capa: {}, none: {}, all: {} },
    {
      what: '{list: null, selector: {}}: Go zero value',
      capa: { list: null, selector: {} },
      none: { selector: {} },
      all: {},
    },
    { what: '{selector: {}}: refused unless ops follow CAPA', capa: { selector: {} }, none: { selector: {} }, all: {} },
    { what: 'a list', capa: { list: ['a'] }, none: { list: ['a'] }, all: { list: ['a'] } },
    {
      what: '{list: []}: no namespace (not Go zero value)',
      capa: { list: [], selector: {} },
      none: { list: [], selector: {} },
      all: { list: [], selector: {} },
    },
    {
      what: 'a selector with requirements',
      capa: { list: null, selector: { matchLabels: { team: 'a' } } },
      none: { selector: { matchLabels: { team: 'a' } } },
      all: { selector: { matchLabels: { team: 'a' } } },
    },
  ];
  for (const { what, capa, none, all } of cases)
    it(`reads allowedNamespaces ${what}`, () => {
      expect(allowedOf(capaController(capa, 'none'))).to.deep.equal(none);
      expect(allowedOf(capaController(capa, 'all-namespaces'))).to.deep.equal(all);
    });

  it("keeps CAPA's apiVersion and CAPA's fields only: never vended, no Keymaster-only field", () => {
    const adapted = capaRole('r', {
      allowedNamespaces: {},
      externalID: 'x',
      sourceIdentityRef: { kind: 'AWSClusterControllerIdentity', name: 'default' },
      credentialVending: { allowedNamespaces: {} },
      externalIDSecretRef: { name: 's' },
      resourceTags: [{ key: 'k', value: 'v' }],
    });
    expect(adapted.apiVersion).to.equal('infrastructure.cluster.x-k8s.io/v1beta2');
    expect(Object.keys(adapted.spec).sort()).to.deep.equal([
      'allowedNamespaces',
      'externalID',
      'roleARN',
      'sourceIdentityRef',
    ]);
    const problems = vendingProblems(
      { kind: adapted.kind, name: 'r', identity: adapted },
      { name: 'tenant-a', labels: {} },
      [],
    );
    expect(problems.map((problem) => problem.constructor)).to.deep.equal([VendingNotEnabledError]);
  });

  it('adapts only the kinds CAPA has', () => {
    expect(capaIdentity(capaObject('AWSClusterWebIdentity', 'w', {}), NONE)).to.equal(undefined);
  });

  it("keys a CAPA identity apart from Keymaster's of the same kind and name", () => {
    expect(identityId('AWSClusterRoleIdentity', 'x', undefined, CAPA_GROUP)).to.equal(
      'AWSClusterRoleIdentity.infrastructure.cluster.x-k8s.io/x',
    );
    expect(identityId('AWSClusterRoleIdentity', 'x', undefined)).to.equal('AWSClusterRoleIdentity/x');
  });
});

describe("resolveChain over CAPA's identities", () => {
  const request = (name: string, namespace = 'tenant-a') => ({
    namespace,
    identityRef: { apiGroup: CAPA_GROUP, kind: 'AWSClusterRoleIdentity' as const, name },
    controllerNamespace: 'keymaster-system',
  });

  it("walks a CAPA role to CAPA's controller identity, in CAPA's group, with apiGroup on each link", async () => {
    const { store } = memoryStore([
      capaRole('tenant', {
        allowedNamespaces: { list: ['tenant-a'] },
        sourceIdentityRef: { kind: 'AWSClusterControllerIdentity', name: 'default' },
      }),
      capaController({}),
      // Keymaster's identity of the same kind and name refuses the namespace: it must not be the one read.
      role('tenant', { allowedNamespaces: { list: [] } }),
      controller({ list: [] }),
    ]);
    const touched = new Set<string>();
    const links = await resolveChain(store, request('tenant'), touched);
    expect(links.map((link) => link.identity.apiVersion)).to.deep.equal([CAPA_API_VERSION, CAPA_API_VERSION]);
    expect([...touched]).to.deep.equal([
      'AWSClusterRoleIdentity.infrastructure.cluster.x-k8s.io/tenant',
      'AWSClusterControllerIdentity.infrastructure.cluster.x-k8s.io/default',
    ]);
    const reach = await chainReach(store, request('tenant'));
    expect(reach.identities).to.deep.equal([
      { apiGroup: CAPA_GROUP, kind: 'AWSClusterRoleIdentity', name: 'tenant' },
      { apiGroup: CAPA_GROUP, kind: 'AWSClusterControllerIdentity', name: 'default' },
    ]);
  });

  it("a CAPA role without sourceIdentityRef chains to CAPA's controller identity, never Keymaster's", async () => {
    const { store } = memoryStore([capaRole('tenant', { allowedNamespaces: {} }), controller({})]);
    const error = await resolveChain(store, request('tenant')).catch((caught: unknown) => caught as Error);
    expect((error as Error).message).to.equal(
      'AWSClusterControllerIdentity.infrastructure.cluster.x-k8s.io/default not found (referenced by AWSClusterRoleIdentity.infrastructure.cluster.x-k8s.io/tenant)',
    );
  });

  it("refuses a namespace CAPA's allowedNamespaces excludes, naming CAPA's identity", async () => {
    const { store } = memoryStore([
      capaRole('tenant', { allowedNamespaces: { list: ['tenant-a'] } }),
      capaController({}),
    ]);
    const error = await resolveChain(store, request('tenant', 'tenant-b')).catch((caught: unknown) => caught as Error);
    expect(error).to.be.instanceOf(NamespaceNotAllowedError);
    expect((error as NamespaceNotAllowedError).chain).to.deep.equal([
      { apiGroup: CAPA_GROUP, kind: 'AWSClusterRoleIdentity', name: 'tenant' },
    ]);
    expect((error as Error).message).to.equal(
      'namespace "tenant-b" may not use AWSClusterRoleIdentity.infrastructure.cluster.x-k8s.io/tenant',
    );
  });

  it('refuses {selector: {}} saying which identity, why and the flag; follows CAPA with the flag', async () => {
    const refused = memoryStore([
      capaRole('tenant', { allowedNamespaces: { list: ['tenant-a'] } }),
      capaController({ selector: {} }),
    ]);
    const error = await resolveChain(refused.store, request('tenant')).catch((caught: unknown) => caught as Error);
    expect(error).to.be.instanceOf(NamespaceNotAllowedError);
    expect((error as Error).message).to.equal(
      'namespace "tenant-a" may not use AWSClusterControllerIdentity.infrastructure.cluster.x-k8s.io/default: its allowedNamespaces is {selector: {}}, which CAPA reads as every namespace and Keymaster as none (link 2 of the chain, a source of the cluster\'s identity)',
    );
    expect((error as NamespaceNotAllowedError).hint).to.contain('--capa-empty-selector=all-namespaces');
    const followed = memoryStore([
      capaRole('tenant', { allowedNamespaces: { list: ['tenant-a'] } }),
      capaController({ selector: {} }, 'all-namespaces'),
    ]);
    expect(await resolveChain(followed.store, request('tenant'))).to.have.length(2);
  });

  it("reads a CAPA static identity's keys from CAPA's namespace, not the controller's", async () => {
    const capaStatic = capaIdentity(
      capaObject('AWSClusterStaticIdentity', 'keys', { secretRef: 'capa-keys', allowedNamespaces: {} }),
      NONE,
    )!;
    const { store, reads } = memoryStore([capaStatic], {
      'capa-system/capa-keys': keys('AKIAIOSFODNN7EXAMPLE'),
    });
    const links = await resolveChain(store, {
      namespace: 'tenant-a',
      identityRef: { apiGroup: CAPA_GROUP, kind: 'AWSClusterStaticIdentity', name: 'keys' },
      controllerNamespace: 'keymaster-system',
    });
    expect(reads.secrets).to.deep.equal(['capa-system/capa-keys']);
    expect((links[0]!.material as { accessKeyId: string }).accessKeyId).to.equal('AKIAIOSFODNN7EXAMPLE');
  });
});
