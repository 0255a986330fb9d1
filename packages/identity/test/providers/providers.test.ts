import { expect } from 'chai';
import { IDENTITY_KINDS, KINDS } from '@keymaster/api';
import { PROVIDERS, providerOf, type IdentityObject } from '../../src/index.js';
import { controller, identity, role, staticIdentity } from '../fixtures.js';

describe('identity providers', () => {
  it('one per identity kind of the API, each of its kind', () => {
    expect(Object.keys(PROVIDERS)).to.have.members([...IDENTITY_KINDS]);
    for (const kind of IDENTITY_KINDS) expect(providerOf(kind).kind).to.equal(kind);
    const identityDefinitions = KINDS.filter(({ kind }) => (IDENTITY_KINDS as readonly string[]).includes(kind));
    expect(identityDefinitions.map(({ kind }) => kind)).to.deep.equal([...IDENTITY_KINDS]);
  });

  it("name a link's source, Secrets and what status shows of it", () => {
    const tenant = role('tenant', { sourceIdentityRef: { kind: 'AWSClusterStaticIdentity', name: 'hub' } });
    const hub = staticIdentity('hub', 'hub-keys');
    expect(providerOf(tenant.kind).source(tenant)).to.deep.equal({ kind: 'AWSClusterStaticIdentity', name: 'hub' });
    expect(providerOf('AWSClusterRoleIdentity').source(role('plain'))).to.deep.equal({
      kind: 'AWSClusterControllerIdentity',
      name: 'default',
    });
    expect(providerOf(hub.kind).source(hub)).to.equal(undefined);
    expect(providerOf(hub.kind).secrets(hub)).to.deep.equal(['hub-keys']);
    expect(providerOf(tenant.kind).linkDetails(tenant)).to.deep.equal({
      roleARN: 'arn:aws:iam::111111111111:role/tenant',
    });
    expect(providerOf(hub.kind).actsWith(hub)).to.equal('keys of Secret hub-keys');
  });

  it('give the controller identity "default" its CredentialsAvailable, a role its lastAssumeRoleTime', () => {
    const renewedAt = new Date('2026-11-23T08:00:00Z');
    const own = providerOf('AWSClusterControllerIdentity').status(controller(), {
      renewedAt,
      controllerCredentials: { source: 'none', error: 'no keys' },
    });
    expect(own.conditions?.map(({ type, status, reason }) => ({ type, status, reason }))).to.deep.equal([
      { type: 'CredentialsAvailable', status: 'False', reason: 'NoCredentials' },
    ]);
    expect(providerOf('AWSClusterRoleIdentity').status(role('r'), { renewedAt })).to.deep.include({
      lastAssumeRoleTime: '2026-11-23T08:00:00.000Z',
    });
    expect(providerOf('AWSClusterStaticIdentity').status(staticIdentity('s', 'k'), { renewedAt })).to.deep.equal({});
  });
});

describe('the web identity provider', () => {
  const spec = { roleARN: 'arn:aws:iam::111111111111:role/web', serviceAccount: { name: 'keymaster' } };
  const inputs = (identity: IdentityObject, namespace: string) =>
    providerOf(identity.kind).credentialInputs(
      { kind: identity.kind, name: identity.metadata.name!, identity },
      namespace,
      'keymaster-system',
    );

  it("keys its sessions by the token's namespace: the cluster's, or the controller's for Controller", () => {
    const perCluster = identity('AWSClusterWebIdentity', 'web', {
      ...spec,
      allowedNamespaces: {},
      credentialVending: { allowedNamespaces: {} },
    });
    expect(inputs(perCluster, 'tenant-a')).to.deep.include({ tokenNamespace: 'tenant-a' });
    expect(inputs(perCluster, 'tenant-a')).to.not.deep.equal(inputs(perCluster, 'tenant-b'));
    expect(inputs(perCluster, 'tenant-a')).to.not.have.any.keys(
      'allowedNamespaces',
      'credentialVending',
      'resourceTags',
    );
    const platform = identity('AWSClusterWebIdentity', 'platform', {
      ...spec,
      serviceAccount: { name: 'keymaster', namespace: 'Controller' },
    });
    expect(inputs(platform, 'tenant-a')).to.deep.equal(inputs(platform, 'tenant-b'));
    expect(inputs(platform, 'tenant-a')).to.deep.include({ tokenNamespace: 'keymaster-system' });
  });

  it('is a root of chains, shows its role, and says which ServiceAccount acts', () => {
    const web = identity('AWSClusterWebIdentity', 'web', spec);
    const provider = providerOf(web.kind);
    expect(provider.source(web)).to.equal(undefined);
    expect(provider.secrets(web)).to.deep.equal([]);
    expect(provider.linkDetails(web)).to.deep.equal({ roleARN: spec.roleARN });
    expect(provider.actsWith(web)).to.equal(
      "role arn:aws:iam::111111111111:role/web with a token of ServiceAccount keymaster in the cluster's namespace",
    );
  });
});
