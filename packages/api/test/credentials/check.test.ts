import { readFile } from 'node:fs/promises';
import { expect } from 'chai';
import { parseAllDocuments } from 'yaml';
import {
  API_VERSION,
  checkCredentialsRequest,
  formatCause,
  InvalidCredentialsRequestError,
  SESSION_POLICY_MAX_CHARACTERS,
  sessionPolicyDocument,
  sessionPolicyOf,
  validateObject,
  type AWSCredentialsRequestSpec,
  type PolicyStatement,
} from '../../src/index.js';

const allow = (actions: string[], extra: Partial<PolicyStatement> = {}): PolicyStatement => ({
  effect: 'Allow',
  actions,
  resources: ['*'],
  ...extra,
});

const spec = (fields: Partial<AWSCredentialsRequestSpec> = {}): AWSCredentialsRequestSpec => ({
  identityRef: { kind: 'AWSClusterRoleIdentity', name: 'tenant-b-workloads' },
  statements: [allow(['tag:GetResources'])],
  secretRef: { name: 'aws' },
  mode: 'Session',
  ...fields,
});

const request = (fields: Record<string, unknown>) => ({
  apiVersion: API_VERSION,
  kind: 'AWSCredentialsRequest',
  metadata: { name: 'reports', namespace: 'tenant-b' },
  spec: { ...spec(), ...fields },
});

const causes = (object: unknown, oldObject?: unknown) =>
  validateObject(object, oldObject === undefined ? {} : { oldObject }).map(formatCause);

describe('AWSCredentialsRequest schema (CEL and patterns)', () => {
  it('accepts the example of deploy/examples', async () => {
    const text = await readFile(
      new URL('../../../../deploy/examples/45-credentials-request.yaml', import.meta.url),
      'utf8',
    );
    const objects = parseAllDocuments(text).map((document) => document.toJS() as { kind: string });
    expect(objects.map(({ kind }) => kind)).to.include('AWSCredentialsRequest');
    for (const object of objects) expect(causes(object), object.kind).to.deep.equal([]);
  });

  it('refuses keys that cannot be narrowed: the controller and static identities (passthrough)', () => {
    for (const kind of ['AWSClusterControllerIdentity', 'AWSClusterStaticIdentity'])
      expect(causes(request({ identityRef: { kind, name: 'default' } })).join()).to.contain(
        'spec.identityRef.kind: Invalid value: "object": Session mode needs a role or web identity',
      );
  });

  it('refuses a session request without statements or policyARNs', () => {
    expect(causes(request({ statements: undefined })).join()).to.contain('Session mode needs statements or policyARNs');
  });

  it('refuses more than 10 policy ARNs, malformed actions and resources', () => {
    const arns = Array.from({ length: 11 }, (_, index) => `arn:aws:iam::aws:policy/P${index}`);
    const found = causes(
      request({
        policyARNs: arns,
        statements: [
          { effect: 'Allow', actions: ['s3 get'], resources: ['bucket'], condition: { 'Bad Op': { k: ['v'] } } },
        ],
      }),
    ).join('\n');
    expect(found).to.contain('spec.policyARNs: Too many: 11: must have at most 10 items');
    expect(found).to.contain('spec.statements[0].actions[0]');
    expect(found).to.contain('spec.statements[0].resources[0]');
  });

  it('WebIdentity mode: a web identity only, and no session policy or duration', () => {
    const found = causes(
      request({
        mode: 'WebIdentity',
        identityRef: { kind: 'AWSClusterRoleIdentity', name: 'r' },
        durationSeconds: 900,
      }),
    ).join('\n');
    expect(found).to.contain('WebIdentity mode needs an AWSClusterWebIdentity');
    expect(found).to.contain('WebIdentity mode takes no statements');
    const valid = request({ mode: 'WebIdentity', identityRef: { kind: 'AWSClusterWebIdentity', name: 'w' } });
    delete (valid.spec as Record<string, unknown>)['statements'];
    expect(causes(valid)).to.deep.equal([]);
  });

  it('keeps secretRef.name and mode immutable', () => {
    const old = request({});
    expect(causes(request({ secretRef: { name: 'other' } }), old).join()).to.contain('secretRef.name is immutable');
    expect(
      causes(
        request({
          mode: 'WebIdentity',
          identityRef: { kind: 'AWSClusterWebIdentity', name: 'w' },
          statements: undefined,
        }),
        old,
      ).join(),
    ).to.contain('mode is immutable');
  });
});

describe('sessionPolicyDocument', () => {
  it('spells statements as IAM JSON, minified, and leaves out what is absent', () => {
    const policy = sessionPolicyDocument([
      allow(['tag:GetResources'], {
        sid: 'Read',
        condition: { StringEquals: { 'aws:RequestedRegion': ['eu-west-1'] } },
      }),
      { effect: 'Deny', actions: ['tag:TagResources'], resources: ['arn:aws:ec2:*:*:instance/*'] },
    ]);
    expect(JSON.parse(policy!)).to.deep.equal({
      Version: '2012-10-17',
      Statement: [
        {
          Sid: 'Read',
          Effect: 'Allow',
          Action: ['tag:GetResources'],
          Resource: ['*'],
          Condition: { StringEquals: { 'aws:RequestedRegion': ['eu-west-1'] } },
        },
        { Effect: 'Deny', Action: ['tag:TagResources'], Resource: ['arn:aws:ec2:*:*:instance/*'] },
      ],
    });
    expect(policy).not.to.match(/\s/);
    expect(sessionPolicyDocument([])).to.equal(undefined);
  });

  it('normalizes the session policy: ARN order and the default duration do not matter', () => {
    const a = sessionPolicyOf(spec({ policyARNs: ['arn:aws:iam::aws:policy/B', 'arn:aws:iam::aws:policy/A'] }));
    const b = sessionPolicyOf(
      spec({ policyARNs: ['arn:aws:iam::aws:policy/A', 'arn:aws:iam::aws:policy/B'], durationSeconds: 3600 }),
    );
    expect(a).to.deep.equal(b);
  });
});

describe('checkCredentialsRequest', () => {
  it('accepts a well-formed request', () => {
    expect(checkCredentialsRequest(spec())).to.deep.equal([]);
  });

  it('counts the session policy as STS receives it and names the fix when it is over 2048 characters', () => {
    const actions = Array.from({ length: 100 }, (_, index) => `ec2:DescribeSomethingQuiteLong${index}`);
    const problems = checkCredentialsRequest(spec({ statements: [allow(actions)] }));
    const policy = sessionPolicyDocument([allow(actions)])!;
    expect(policy.length).to.be.greaterThan(SESSION_POLICY_MAX_CHARACTERS);
    expect(problems).to.have.length(1);
    expect(problems[0]).to.include({ field: 'spec.statements' });
    expect(problems[0]!.problem).to.contain(`${policy.length} characters`);
    expect(problems[0]!.fix).to.contain('policyARNs');
  });

  it('accepts a policy of exactly 2048 characters', () => {
    const base = sessionPolicyDocument([allow(['s3:GetObject'], { resources: ['arn:aws:s3:::b/'] })])!;
    const padded = allow(['s3:GetObject'], { resources: [`arn:aws:s3:::b/${'x'.repeat(2048 - base.length)}`] });
    expect(sessionPolicyDocument([padded])).to.have.length(2048);
    expect(checkCredentialsRequest(spec({ statements: [padded] }))).to.deep.equal([]);
  });

  it('finds duplicate Sids, condition keys without values, characters AWS refuses and Deny-only policies', () => {
    const problems = checkCredentialsRequest(
      spec({
        statements: [
          { effect: 'Deny', actions: ['s3:*'], resources: ['*'], sid: 'A' },
          {
            effect: 'Deny',
            actions: ['ec2:*'],
            resources: ['*'],
            sid: 'A',
            condition: { StringEquals: { 'aws:x': [] } },
          },
          {
            effect: 'Deny',
            actions: ['ec2:*'],
            resources: ['*'],
            condition: { StringEquals: { 'aws:x': ['\u{1F600}'] } },
          },
        ],
      }),
    );
    expect(problems.map(({ field }) => field)).to.deep.equal([
      'spec.statements[1].sid',
      'spec.statements[1].condition.StringEquals.aws:x',
      'spec.statements[2]',
      'spec.statements',
    ]);
    for (const problem of problems) expect(problem.fix).to.not.equal('');
  });

  it('names a condition operator that is not one', () => {
    const [problem] = checkCredentialsRequest(
      spec({ statements: [allow(['s3:GetObject'], { condition: { 'Bad Op': { 'aws:x': ['v'] } } })] }),
    );
    expect(problem).to.include({ field: 'spec.statements[0].condition' });
    expect(problem!.problem).to.contain('"Bad Op" is not an IAM condition operator name');
    expect(
      checkCredentialsRequest(
        spec({
          statements: [allow(['s3:GetObject'], { condition: { 'ForAnyValue:StringLike': { 'aws:x': ['v'] } } })],
        }),
      ),
    ).to.deep.equal([]);
  });

  it('caps the duration at one hour when the role is chained', () => {
    expect(checkCredentialsRequest(spec({ durationSeconds: 7200 }))).to.deep.equal([]);
    const [problem] = checkCredentialsRequest(spec({ durationSeconds: 7200 }), { chained: true });
    expect(problem).to.include({ field: 'spec.durationSeconds' });
    expect(problem!.problem).to.contain('role chaining');
    expect(problem!.fix).to.contain('at most 3600');
  });

  it('gathers every problem into one error with a stable code', () => {
    const error = new InvalidCredentialsRequestError(
      checkCredentialsRequest(spec({ durationSeconds: 7200 }), { chained: true }),
    );
    expect(error.code).to.equal('ERR_KEYMASTER_INVALID_CREDENTIALS_REQUEST');
    expect(error.message).to.contain('spec.durationSeconds');
    expect(error.hint).to.contain('3600');
  });
});
