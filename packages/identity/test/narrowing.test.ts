import { expect } from 'chai';
import { sessionPolicyOf, type AWSCredentialsRequestSpec, type IdentityObject } from '@keymaster/api';
import { checkNarrowing, roleChained, SessionPolicyWouldBroadenError, type ChainLink } from '../src/index.js';
import { controller, identity, role, staticIdentity } from './fixtures.js';

const link = (identity: IdentityObject): ChainLink => ({
  kind: identity.kind,
  name: identity.metadata.name!,
  identity,
});

const TAG_ONLY = 'arn:aws:iam::333333333333:policy/TagOnly';
const READ_ONLY = 'arn:aws:iam::aws:policy/ReadOnlyAccess';

const session = (fields: Partial<AWSCredentialsRequestSpec>) =>
  sessionPolicyOf({
    identityRef: { kind: 'AWSClusterRoleIdentity', name: 'r' },
    secretRef: { name: 's' },
    ...fields,
  });
const statements = session({ statements: [{ effect: 'Allow', actions: ['tag:GetResources'], resources: ['*'] }] });

describe('checkNarrowing', () => {
  it('lets a role session without session policies of its own take any request policy', () => {
    expect(() =>
      checkNarrowing(link(role('r', { roleARN: 'arn:aws:iam::333333333333:role/r' })), statements),
    ).not.to.throw();
  });

  it("refuses what could widen an identity's own session policies, and allows a subset of its managed policies", () => {
    const narrowed = link(
      role('r', { roleARN: 'arn:aws:iam::333333333333:role/r', policyARNs: [TAG_ONLY, READ_ONLY] }),
    );
    expect(() => checkNarrowing(narrowed, statements)).to.throw(SessionPolicyWouldBroadenError);
    expect(() =>
      checkNarrowing(narrowed, session({ policyARNs: ['arn:aws:iam::aws:policy/AdministratorAccess'] })),
    ).to.throw(SessionPolicyWouldBroadenError);
    expect(() => checkNarrowing(narrowed, session({ policyARNs: [TAG_ONLY] }))).not.to.throw();
    const inline = link(
      role('r', { roleARN: 'arn:aws:iam::333333333333:role/r', inlinePolicy: '{"Version":"2012-10-17"}' }),
    );
    expect(() => checkNarrowing(inline, session({ policyARNs: [TAG_ONLY] }))).to.throw(SessionPolicyWouldBroadenError);
  });
});

describe('roleChained', () => {
  it('is true only for a role assumed with a role or web identity session', () => {
    const r = link(role('r', { roleARN: 'arn:aws:iam::333333333333:role/r' }));
    expect(roleChained([r, link(role('hub', { roleARN: 'arn:aws:iam::111111111111:role/hub' }))])).to.equal(true);
    const web = identity('AWSClusterWebIdentity', 'w', {
      roleARN: 'arn:aws:iam::333333333333:role/w',
      serviceAccount: { name: 'keymaster' },
    });
    expect(roleChained([r, link(web)])).to.equal(true);
    expect(roleChained([link(web)])).to.equal(false);
    expect(roleChained([r, link(controller({}))])).to.equal(false);
    expect(roleChained([r, link(staticIdentity('a', 'k', {}))])).to.equal(false);
    expect(roleChained([r])).to.equal(false);
  });
});
