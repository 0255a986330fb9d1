import { expect } from 'chai';
import {
  API_VERSION,
  IDENTITY_KINDS,
  assertValidObject,
  characterCount,
  formatCause,
  InvalidObjectError,
  validateObject,
} from '../../src/index.js';

const role = (spec: Record<string, unknown>, name = 'tenant-b') => ({
  apiVersion: API_VERSION,
  kind: 'AWSClusterRoleIdentity',
  metadata: { name },
  spec: { roleARN: 'arn:aws:iam::333333333333:role/tenant-b-admin', ...spec },
});

const cluster = (spec: Record<string, unknown>) => ({
  apiVersion: API_VERSION,
  kind: 'AWSCluster',
  metadata: { name: 'prod-1', namespace: 'tenant-a' },
  spec: { region: 'us-west-2', ...spec },
});

/** The causes as kubectl prints them. */
const messages = (object: unknown, oldObject?: unknown) =>
  validateObject(object, oldObject === undefined ? {} : { oldObject }).map(formatCause);

describe('validateObject', () => {
  it('accepts a complete role identity', () => {
    const valid = role({
      sessionName: 'keymaster-tenant-b',
      durationSeconds: 3600,
      externalID: '7a5b816a-7743-4377-a382-2d695bf1f172',
      policyARNs: ['arn:aws:iam::aws:policy/ReadOnlyAccess'],
      sourceIdentityRef: { kind: 'AWSClusterRoleIdentity', name: 'hub' },
      sessionTags: [{ key: 'tenant', value: 'b' }],
      transitiveTagKeys: ['tenant'],
      allowedNamespaces: { list: ['tenant-b'], selector: { matchLabels: { tier: 'gold' } } },
      resourceTags: [{ key: 'tenant', value: 'tenant-b', overridePolicy: 'Deny' }],
    });
    expect(validateObject(valid)).to.deep.equal([]);
  });

  it('names the field, the value and the bound of a number out of range', () => {
    expect(messages(role({ durationSeconds: 60 }))).to.deep.equal([
      'spec.durationSeconds: Invalid value: 60: must be >= 900',
    ]);
    expect(messages(role({ durationSeconds: 50000 }))).to.deep.equal([
      'spec.durationSeconds: Invalid value: 50000: must be <= 43200',
    ]);
  });

  it('reports missing required fields', () => {
    const object = cluster({});
    delete (object.spec as Record<string, unknown>)['region'];
    expect(messages(object)).to.deep.equal(['spec.region: Required value']);
    expect(messages({ apiVersion: API_VERSION, kind: 'AWSCluster', metadata: { name: 'x' } })).to.deep.equal([
      'spec: Required value',
    ]);
  });

  it('reports wrong types and unsupported enum values', () => {
    expect(messages(role({ durationSeconds: '3600' }))).to.deep.equal([
      'spec.durationSeconds: Invalid value: "3600": must be of type integer',
    ]);
    expect(messages(cluster({ identityRef: { kind: 'AWSClusterSecretIdentity', name: 'x' } }))).to.deep.equal([
      `spec.identityRef.kind: Unsupported value: "AWSClusterSecretIdentity": supported values: ${IDENTITY_KINDS.map((kind) => `"${kind}"`).join(', ')}`,
    ]);
  });

  it('enforces AWS STS parameter rules on sessionName, externalID and roleARN', () => {
    expect(messages(role({ sessionName: 'x' }))).to.deep.equal([
      'spec.sessionName: Invalid value: "x": must be at least 2 characters',
    ]);
    expect(messages(role({ sessionName: 'a'.repeat(65) }))).to.deep.equal([
      'spec.sessionName: Too long: 65 characters: may not be more than 64 characters',
    ]);
    expect(messages(role({ sessionName: 'has space' }))[0]).to.match(
      /^spec\.sessionName: Invalid value: "has space": must match/,
    );
    expect(messages(role({ externalID: 'id;drop' }))[0]).to.match(
      /^spec\.externalID: Invalid value: "id;drop": must match/,
    );
    expect(messages(role({ roleARN: 'arn:aws:iam::1234:role/x' }))[0]).to.match(/^spec\.roleARN: Invalid value/);
    expect(validateObject(role({ roleARN: 'arn:aws-us-gov:iam::123456789012:role/path/to/Role_1' }))).to.deep.equal([]);
  });

  it('refuses more than 3600 seconds for a role sourced from a role, but not from other sources', () => {
    const chained = role({ durationSeconds: 7200, sourceIdentityRef: { kind: 'AWSClusterRoleIdentity', name: 'hub' } });
    const [message] = messages(chained);
    expect(message).to.match(/^spec\.durationSeconds: Invalid value: "object": durationSeconds may be at most 3600/);
    expect(
      messages(role({ durationSeconds: 7200, sourceIdentityRef: { kind: 'AWSClusterStaticIdentity', name: 's' } })),
    ).to.deep.equal([]);
  });

  it('takes the externalID from a Secret (name and key) or from the spec, never both', () => {
    const secretRef = { name: 'tenant-b-external-id', key: 'externalID' };
    expect(validateObject(role({ externalIDSecretRef: secretRef }))).to.deep.equal([]);
    expect(
      messages(role({ externalIDSecretRef: secretRef, externalID: '7a5b816a-7743-4377-a382-2d695bf1f172' })),
    ).to.deep.equal([
      'spec.externalIDSecretRef: Invalid value: "object": set externalIDSecretRef or externalID, not both: keep the externalID in the Secret only (externalID is readable by every tenant allowed to read identities)',
    ]);
    expect(messages(role({ externalIDSecretRef: { name: 'tenant-b-external-id' } }))).to.deep.equal([
      'spec.externalIDSecretRef.key: Required value',
    ]);
    expect(messages(role({ externalIDSecretRef: { name: 'Not_A_Name', key: 'externalID' } }))[0]).to.match(
      /^spec\.externalIDSecretRef\.name: Invalid value: "Not_A_Name": must match/,
    );
    expect(messages(role({ externalIDSecretRef: { name: 'x', key: 'external id' } }))[0]).to.match(
      /^spec\.externalIDSecretRef\.key: Invalid value: "external id": must match/,
    );
  });

  it('requires transitiveTagKeys to be session tag keys', () => {
    expect(messages(role({ transitiveTagKeys: ['team'] }))[0]).to.match(
      /^spec\.transitiveTagKeys: .*must be the key of one of sessionTags/,
    );
  });

  it('refuses bad tag keys and values in resourceTags, with the item index', () => {
    const tags = [
      { key: 'aws:createdBy', value: 'me' },
      { key: 'ok', value: 'semi;colon' },
      { key: 'k'.repeat(129), value: 'v' },
    ];
    const found = messages(role({ resourceTags: tags }));
    expect(found[0]).to.equal(
      'spec.resourceTags[0].key: Invalid value: "aws:createdBy": tag keys starting with "aws:" are reserved by AWS',
    );
    expect(found[1]).to.match(/^spec\.resourceTags\[1\]\.value: Invalid value: "semi;colon": must match/);
    expect(found[2]).to.equal(
      'spec.resourceTags[2].key: Too long: 129 characters: may not be more than 128 characters',
    );
    expect(found).to.have.length(3);
  });

  it('refuses whitespace around tag keys, not inside them nor around values', () => {
    const tags = [
      { key: 'platform-managed ', value: 'v' },
      { key: ' sigs.k8s.io/cluster-api-provider-aws/cluster/victim', value: 'owned' },
      { key: '\u00a0team', value: 'v' },
      { key: 'team name', value: ' spaced ' },
    ];
    expect(messages(role({ resourceTags: tags }))).to.deep.equal([
      'spec.resourceTags[0].key: Invalid value: "platform-managed ": tag keys may not start or end with whitespace',
      'spec.resourceTags[1].key: Invalid value: " sigs.k8s.io/cluster-api-provider-aws/cluster/victim": tag keys may not start or end with whitespace',
      'spec.resourceTags[2].key: Invalid value: "\u00a0team": tag keys may not start or end with whitespace',
    ]);
    expect(messages(role({ sessionTags: [{ key: 'tenant ', value: 'b' }] }))).to.deep.equal([
      'spec.sessionTags[0].key: Invalid value: "tenant ": tag keys may not start or end with whitespace',
    ]);
    const found = messages(cluster({ additionalTags: { 'platform-managed ': 'v', ' x': 'v', 'team name': 'v' } }));
    expect(found).to.have.length(1);
    expect(found[0]).to.match(/^spec\.additionalTags: .*tag keys may not start or end with whitespace$/);
  });

  it('counts lengths in characters, as the API server and AWS do, not UTF-16 units', () => {
    const astral = '\u{1D49C}';
    expect(characterCount(astral.repeat(128))).to.equal(128);
    expect(characterCount('a\ud800b'), 'a lone surrogate is one character').to.equal(3);
    expect(
      validateObject(role({ resourceTags: [{ key: astral.repeat(128), value: astral.repeat(256) }] })),
    ).to.deep.equal([]);
    expect(messages(role({ resourceTags: [{ key: astral.repeat(129), value: 'v' }] }))).to.deep.equal([
      'spec.resourceTags[0].key: Too long: 129 characters: may not be more than 128 characters',
    ]);
  });

  it('accepts tags in any script, as AWS does', () => {
    expect(validateObject(role({ resourceTags: [{ key: 'Kostenstelle/Büro', value: '東京 + 1' }] }))).to.deep.equal([]);
  });

  it('refuses duplicate tag keys and more than 50 tags', () => {
    expect(
      messages(
        role({
          resourceTags: [
            { key: 'a', value: '1' },
            { key: 'a', value: '2' },
          ],
        }),
      ),
    ).to.deep.equal(['spec.resourceTags[1]: Duplicate value: {"key":"a"}']);
    const many = Array.from({ length: 51 }, (_, index) => ({ key: `k${index}`, value: 'v' }));
    expect(messages(role({ resourceTags: many }))).to.deep.equal([
      'spec.resourceTags: Too many: 51: must have at most 50 items',
    ]);
  });

  it('checks additionalTags keys: length, the aws: prefix and punctuation AWS refuses', () => {
    const found = messages(cluster({ additionalTags: { ['x'.repeat(129)]: 'v', 'AWS:name': 'v', 'a;b': 'v' } }));
    expect(found).to.have.length(3);
    expect(found[0]).to.match(/^spec\.additionalTags: .*tag keys must be 1-128 characters$/);
    expect(found[1]).to.match(/^spec\.additionalTags: .*reserved by AWS$/);
    expect(found[2]).to.match(/^spec\.additionalTags: .*may hold only letters/);
    const tooMany = Object.fromEntries(Array.from({ length: 51 }, (_, index) => [`k${index}`, 'v']));
    expect(messages(cluster({ additionalTags: tooMany }))).to.deep.equal([
      'spec.additionalTags: Too many: 51: must have at most 50 items',
    ]);
  });

  it('keeps singletons named default', () => {
    const identity = {
      apiVersion: API_VERSION,
      kind: 'AWSClusterControllerIdentity',
      metadata: { name: 'mine' },
      spec: {},
    };
    expect(messages(identity)).to.deep.equal([
      'metadata.name: Invalid value: "object": AWSClusterControllerIdentity is a singleton: name it "default"',
    ]);
    expect(validateObject({ ...identity, metadata: { name: 'default' } })).to.deep.equal([]);
  });

  describe('tag policies: the global one, and those that select clusters', () => {
    const policy = (name: string, spec: Record<string, unknown>) => ({
      apiVersion: API_VERSION,
      kind: 'AWSTagPolicy',
      metadata: { name },
      spec,
    });
    const PROD = { matchLabels: { env: 'prod' } };
    const rows: { title: string; name: string; spec: Record<string, unknown>; refused?: RegExp }[] = [
      { title: 'the global policy', name: 'default', spec: { resourceTags: [] } },
      { title: 'a cluster selector', name: 'prod', spec: { clusterSelector: PROD, precedence: 10 } },
      { title: 'a namespace selector', name: 'payments', spec: { namespaceSelector: PROD } },
      {
        title: 'another policy without a selector',
        name: 'global',
        spec: {},
        refused: /^spec: .*other than "default" tags the clusters it selects: set spec\.clusterSelector/,
      },
      {
        title: 'a selector on the global policy',
        name: 'default',
        spec: { namespaceSelector: PROD },
        refused: /^spec: .*"default" is the global layer and tags every cluster: remove clusterSelector/,
      },
      {
        title: 'precedence on the global policy',
        name: 'default',
        spec: { precedence: 1 },
        refused: /^spec: .*remove clusterSelector, namespaceSelector and precedence/,
      },
      {
        title: 'an empty selector',
        name: 'all',
        spec: { clusterSelector: {} },
        refused: /^spec\.clusterSelector: .*clusterSelector is empty, which would select every cluster/,
      },
      {
        title: 'a precedence out of range',
        name: 'prod',
        spec: { clusterSelector: PROD, precedence: 1001 },
        refused: /^spec\.precedence: .*must be <= 1000/,
      },
    ];
    for (const row of rows)
      it(`${row.refused ? 'refuses' : 'accepts'} ${row.title}`, () => {
        const found = messages(policy(row.name, row.spec));
        if (row.refused)
          expect(found)
            .to.have.length(1)
            .and.to.satisfy((all: string[]) => row.refused!.test(all[0]!));
        else expect(found).to.deep.equal([]);
      });
  });

  it('names an account binding after its account, and its tenants as label values', () => {
    const binding = (name: string, tenants: string[]) => ({
      apiVersion: API_VERSION,
      kind: 'AWSAccountBinding',
      metadata: { name },
      spec: { tenants },
    });
    expect(validateObject(binding('222222222222', ['tenant-a', 'tenant-b']))).to.deep.equal([]);
    expect(validateObject(binding('222222222222', []))).to.deep.equal([]);
    expect(messages(binding('tenant-a-account', ['tenant-a']))).to.deep.equal([
      'metadata.name: Invalid value: "object": AWSAccountBinding is named after its AWS account: the 12 digits of the account ID, e.g. "123456789012"',
    ]);
    expect(messages(binding('22222222222', ['tenant-a']))[0]).to.match(
      /^metadata\.name: .*named after its AWS account/,
    );
    expect(messages(binding('222222222222', ['-tenant']))[0]).to.match(/^spec\.tenants\[0\]: Invalid value: "-tenant"/);
    expect(messages(binding('222222222222', ['tenant-a', 'tenant-a']))[0]).to.match(
      /^spec\.tenants\[1\]: Duplicate value/,
    );
  });

  it('applies transition rules on update only: secretRef and clusterName are immutable, identityRef cannot be removed', () => {
    const identity = (secretRef: string) => ({
      apiVersion: API_VERSION,
      kind: 'AWSClusterStaticIdentity',
      metadata: { name: 'tenant-a' },
      spec: { secretRef },
    });
    expect(validateObject(identity('other'))).to.deep.equal([]);
    expect(messages(identity('other'), identity('first'))).to.deep.equal([
      'spec.secretRef: Invalid value: "other": secretRef is immutable',
    ]);
    expect(validateObject(identity('first'), { oldObject: identity('first') })).to.deep.equal([]);

    const named = cluster({ clusterName: 'prod-1' });
    expect(messages(cluster({ clusterName: 'prod-2' }), named)).to.deep.equal([
      'spec.clusterName: Invalid value: "prod-2": clusterName is immutable',
    ]);
    expect(messages(cluster({}), named)[0]).to.match(/clusterName cannot be added or removed/);
    const withIdentity = cluster({ identityRef: { kind: 'AWSClusterStaticIdentity', name: 'a' } });
    expect(messages(cluster({}), withIdentity)[0]).to.match(/identityRef cannot be removed once set/);
  });

  it('takes every name EKS takes in clusterName, and every name taken before, and nothing else', () => {
    const ledger = (clusterName: string) => ({
      apiVersion: API_VERSION,
      kind: 'AWSClusterLedger',
      metadata: { name: 'prod-1', namespace: 'tenant-a' },
      spec: {
        claims: [{ accountID: '111111111111', region: 'us-west-2', clusterName, since: '2026-01-01T00:00:00Z' }],
      },
    });
    const eks = ['tenant-a_prod-EKS', 'tenant-a_prod-eks', 'Prod', '9_', 'a-', `A${'b'.repeat(82)}`];
    const before = ['prod-1', 'a', 'prod.eu-west-1.example', `a${'.b'.repeat(41)}`];
    for (const name of [...eks, ...before]) {
      expect(messages(cluster({ clusterName: name })), name).to.deep.equal([]);
      expect(messages(ledger(name)), name).to.deep.equal([]);
    }
    for (const name of ['_prod', '-prod', 'prod.', 'Prod.eu', 'prod/eu', 'prod eu', 'prod:eu', '']) {
      expect(messages(cluster({ clusterName: name })), name).to.have.length.greaterThan(0);
      expect(messages(ledger(name)), name).to.have.length.greaterThan(0);
    }
  });

  it('refuses an EKS name longer than the ownership tag keys leave, naming the field, the key and the fix', () => {
    const tooLong = `tenant-a_${'p'.repeat(75)}`;
    expect(tooLong).to.have.length(84);
    expect(messages(cluster({ clusterName: tooLong }))).to.deep.equal([
      `spec.clusterName: Invalid value: "${tooLong}": clusterName is longer than 83 characters, so the ownership ` +
        "tag key sigs.k8s.io/cluster-api-provider-aws/cluster/<name> would pass AWS's 128-character limit: give the " +
        'cluster a name of at most 83 characters (for EKS, AWSManagedControlPlane.spec.eksClusterName)',
    ]);
    // Past EKS's own 100, the schema's bound speaks too.
    expect(messages(cluster({ clusterName: 'a'.repeat(101) }))[0]).to.match(/spec\.clusterName: Too long/);
  });

  it('refuses unknown fields unless told to ignore them', () => {
    const typo = cluster({ regoin: 'us-east-1' });
    expect(messages(typo)).to.deep.equal([
      'spec.regoin: Forbidden: unknown field: remove it, or check its spelling with kubectl explain',
    ]);
    expect(validateObject(typo, { unknownFields: 'ignore' })).to.deep.equal([]);
  });

  it("leaves the root's metadata to the API server: labels, annotations, finalizers are not unknown fields", () => {
    const metadata = {
      name: 'default',
      labels: { team: 'a' },
      annotations: { note: 'x' },
      finalizers: ['example.com/f'],
      ownerReferences: [{ apiVersion: 'v1', kind: 'Secret', name: 's', uid: 'u' }],
    };
    const identity = { apiVersion: API_VERSION, kind: 'AWSClusterControllerIdentity', metadata, spec: {} };
    expect(validateObject(identity)).to.deep.equal([]);
    expect(messages({ ...identity, metadata: { ...metadata, name: 7 } })[0]).to.match(
      /^metadata\.name: Invalid value: 7: must be of type string/,
    );
  });

  it('refuses objects of other groups and kinds', () => {
    expect(messages({ apiVersion: 'v1', kind: 'Secret' })[0]).to.match(/^apiVersion: Unsupported value: "v1"/);
    expect(messages({ apiVersion: API_VERSION, kind: 'AWSMachine' })[0]).to.match(
      /^kind: Unsupported value: "AWSMachine"/,
    );
    expect(messages(null)[0]).to.match(/^apiVersion: Unsupported value/);
  });
});

describe('assertValidObject', () => {
  it('throws InvalidObjectError with a stable code, every cause and a hint', () => {
    try {
      assertValidObject(role({ sessionName: 'x', durationSeconds: 1 }));
      expect.fail('expected an error');
    } catch (error) {
      expect(error).to.be.instanceOf(InvalidObjectError);
      const invalid = error as InvalidObjectError;
      expect(invalid.code).to.equal('ERR_KEYMASTER_INVALID_OBJECT');
      expect(invalid.causes.map((cause) => cause.field)).to.deep.equal(['spec.sessionName', 'spec.durationSeconds']);
      expect(invalid.message).to.equal(
        'AWSClusterRoleIdentity "tenant-b" is invalid: spec.sessionName: Invalid value: "x": must be at least 2 characters; ' +
          'spec.durationSeconds: Invalid value: 1: must be >= 900',
      );
      expect(invalid.hint).to.match(/kubectl explain/);
    }
  });
});
