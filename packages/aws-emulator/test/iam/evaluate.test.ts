import { expect } from 'chai';
import { evaluate } from '../../src/iam/evaluate.js';
import { parsePolicyDocument, type PolicyDocument } from '../../src/iam/policy.js';

function policy(...Statement: object[]): PolicyDocument {
  const document = parsePolicyDocument({ Version: '2012-10-17', Statement });
  if (typeof document === 'string') throw new Error(document);
  return document;
}

const ARN = 'arn:aws:ec2:us-west-2:111111111111:instance/i-1';

function allowed(
  policies: PolicyDocument[],
  action: string,
  keys: Record<string, string[]> = {},
  session: PolicyDocument[] = [],
) {
  const context = new Map(Object.entries(keys).map(([key, values]) => [key.toLowerCase(), values]));
  return evaluate({ action, resource: ARN, context }, policies, session).allowed;
}

describe('IAM policy evaluation', () => {
  it('matches actions case-insensitively with wildcards, resources case-sensitively', () => {
    const p = policy({ Effect: 'Allow', Action: 'EC2:Create*', Resource: 'arn:aws:ec2:*:*:instance/*' });
    expect(allowed([p], 'ec2:CreateTags')).to.equal(true);
    expect(allowed([p], 'ec2:DeleteTags')).to.equal(false);
    const upper = policy({ Effect: 'Allow', Action: '*', Resource: ARN.toUpperCase() });
    expect(allowed([upper], 'ec2:CreateTags')).to.equal(false);
  });

  it('lets an explicit deny win over any allow, in identity or session policies', () => {
    const all = policy({ Effect: 'Allow', Action: '*', Resource: '*' });
    const deny = policy({ Effect: 'Deny', Action: 'ec2:DeleteTags', Resource: '*' });
    expect(allowed([all, deny], 'ec2:DeleteTags')).to.equal(false);
    expect(allowed([all], 'ec2:DeleteTags', {}, [all, deny])).to.equal(false);
    expect(allowed([all], 'ec2:CreateTags', {}, [all, deny])).to.equal(true);
  });

  it('supports NotAction and NotResource', () => {
    const p = policy({ Effect: 'Allow', NotAction: 'ec2:DeleteTags', NotResource: 'arn:aws:ec2:*:*:vpc/*' });
    expect(allowed([p], 'ec2:CreateTags')).to.equal(true);
    expect(allowed([p], 'ec2:DeleteTags')).to.equal(false);
  });

  describe('conditions', () => {
    const withCondition = (Condition: object) => [policy({ Effect: 'Allow', Action: '*', Resource: '*', Condition })];

    it('StringEquals needs the key; the negated operators hold when it is absent', () => {
      const equals = withCondition({ StringEquals: { 'aws:ResourceTag/owner': ['a', 'b'] } });
      expect(allowed(equals, 'x:Y', { 'aws:ResourceTag/owner': ['b'] })).to.equal(true);
      expect(allowed(equals, 'x:Y')).to.equal(false);
      const notEquals = withCondition({ StringNotEquals: { 'aws:ResourceTag/owner': 'a' } });
      expect(allowed(notEquals, 'x:Y')).to.equal(true);
      expect(allowed(notEquals, 'x:Y', { 'aws:ResourceTag/owner': ['a'] })).to.equal(false);
    });

    it('IfExists holds when the key is absent; Null tests presence', () => {
      expect(allowed(withCondition({ StringEqualsIfExists: { 'aws:RequestTag/env': 'prod' } }), 'x:Y')).to.equal(true);
      expect(allowed(withCondition({ Null: { 'aws:RequestTag/env': 'true' } }), 'x:Y')).to.equal(true);
      expect(allowed(withCondition({ Null: { 'aws:RequestTag/env': 'false' } }), 'x:Y')).to.equal(false);
    });

    it('ForAllValues and ForAnyValue quantify over multi-valued keys', () => {
      const only = withCondition({ 'ForAllValues:StringLike': { 'aws:TagKeys': ['team', 'cost-*'] } });
      expect(allowed(only, 'x:Y', { 'aws:TagKeys': ['team', 'cost-center'] })).to.equal(true);
      expect(allowed(only, 'x:Y', { 'aws:TagKeys': ['team', 'owner'] })).to.equal(false);
      const any = withCondition({ 'ForAnyValue:StringEquals': { 'aws:TagKeys': 'owner' } });
      expect(allowed(any, 'x:Y', { 'aws:TagKeys': ['team', 'owner'] })).to.equal(true);
      expect(allowed(any, 'x:Y', { 'aws:TagKeys': [] })).to.equal(false);
    });

    it('compares numbers and booleans, and reads keys case-insensitively', () => {
      expect(
        allowed(withCondition({ NumericLessThan: { 'aws:EpochTime': '100' } }), 'x:Y', { 'AWS:EPOCHTIME': ['99'] }),
      ).to.equal(true);
      expect(
        allowed(withCondition({ Bool: { 'aws:SecureTransport': true } }), 'x:Y', { 'aws:SecureTransport': ['false'] }),
      ).to.equal(false);
    });

    it('ANDs operators and keys, ORs the values of one key', () => {
      const both = withCondition({
        StringEquals: { 'aws:RequestedRegion': ['us-west-2', 'eu-west-1'], 'aws:PrincipalAccount': '1' },
      });
      expect(allowed(both, 'x:Y', { 'aws:RequestedRegion': ['eu-west-1'], 'aws:PrincipalAccount': ['1'] })).to.equal(
        true,
      );
      expect(allowed(both, 'x:Y', { 'aws:RequestedRegion': ['eu-west-1'], 'aws:PrincipalAccount': ['2'] })).to.equal(
        false,
      );
    });
  });

  it('explains malformed documents', () => {
    expect(parsePolicyDocument('{')).to.equal('The policy is not in the valid JSON format.');
    expect(parsePolicyDocument({ Statement: [{ Effect: 'Allow', Action: '*' }] })).to.equal(
      'Syntax errors in policy: Statement[0]: exactly one of Resource and NotResource',
    );
    expect(
      parsePolicyDocument({ Statement: [{ Effect: 'Allow', Action: '*', Resource: '*', Principal: '*' }] }),
    ).to.match(/element 'Principal' is not supported/);
  });
});
