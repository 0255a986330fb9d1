import { KeymasterError } from '@keymaster/api';
import { expect } from 'chai';
import {
  assertValidTags,
  countUserTags,
  InvalidTagsError,
  SERVICE_TAG_RULES,
  TaggingError,
  validateTag,
  validateTags,
  type TagOrigin,
  type TagRule,
  type TagValidationOptions,
} from '../src/index.js';

const origin: TagOrigin = { layer: 'Account', object: 'AWSClusterRoleIdentity/tenant-b' };
const rules = (key: string, value = 'v', options: TagValidationOptions = {}) =>
  validateTag(key, value, origin, options).map((problem) => problem.rule);

// A letter outside the Basic Multilingual Plane: one code point, two UTF-16 units.
const ASTRAL_LETTER = '\u{1D49C}';

describe('validateTag', () => {
  describe("AWS's lengths, in code points", () => {
    const cases: [string, string, string, TagRule[]][] = [
      ['an empty key', '', 'v', ['KeyLength']],
      ['a 1-character key', 'k', 'v', []],
      ['a 128-character key', 'k'.repeat(128), 'v', []],
      ['a 129-character key', 'k'.repeat(129), 'v', ['KeyLength']],
      ['128 astral letters (256 UTF-16 units) as a key', ASTRAL_LETTER.repeat(128), 'v', []],
      ['129 astral letters as a key', ASTRAL_LETTER.repeat(129), 'v', ['KeyLength']],
      ['an empty value', 'k', '', []],
      ['a 256-character value', 'k', 'v'.repeat(256), []],
      ['a 257-character value', 'k', 'v'.repeat(257), ['ValueLength']],
      ['256 astral letters as a value', 'k', ASTRAL_LETTER.repeat(256), []],
      ['257 astral letters as a value', 'k', ASTRAL_LETTER.repeat(257), ['ValueLength']],
    ];
    for (const [name, key, value, expected] of cases) {
      it(`${expected.length === 0 ? 'accepts' : 'refuses'} ${name}`, () => {
        expect(rules(key, value)).to.deep.equal(expected);
      });
    }
  });

  describe('the aws: prefix, reserved in any case', () => {
    const cases: [string, TagRule[]][] = [
      ['aws:cloudformation:stack-name', ['ReservedPrefix']],
      ['AWS:x', ['ReservedPrefix']],
      ['Aws:x', ['ReservedPrefix']],
      ['aWs:x', ['ReservedPrefix']],
      ['aws', []],
      ['awsx:y', []],
      ['team:aws:x', []],
    ];
    for (const [key, expected] of cases) {
      it(`${expected.length === 0 ? 'accepts' : 'refuses'} ${JSON.stringify(key)}`, () => {
        expect(rules(key)).to.deep.equal(expected);
      });
    }
  });

  describe("AWS's general character set", () => {
    // OpenShift's `[0-9A-Za-z_.:/=+-@]` reads `+-@` as a range, which lets `, ; < > ?` through.
    for (const character of [',', ';', '<', '>', '?', '*', '#', '!', '"', "'", '\\', '|', '~', '\t', '\n', '\u0000']) {
      it(`refuses ${JSON.stringify(character)} in keys and values`, () => {
        const [keyProblem] = validateTag(`a${character}b`, 'v', origin);
        expect(keyProblem?.rule).to.equal('KeyCharacters');
        expect(keyProblem?.message).to.contain(JSON.stringify(character));
        expect(rules('k', `a${character}b`)).to.deep.equal(['ValueCharacters']);
      });
    }
    const accepted = [
      'cost-center',
      'a_b.c:d/e=f+g-h@i',
      'team name',
      'équipe',
      '部署',
      'Ω9',
      'no\u00a0break',
      ASTRAL_LETTER,
    ];
    for (const text of accepted) {
      it(`accepts ${JSON.stringify(text)}`, () => {
        expect(rules(text, text)).to.deep.equal([]);
      });
    }
    it('names each refused character once', () => {
      const [problem] = validateTag('a,b,c;d', 'v', origin);
      expect(problem?.message).to.contain('the key holds "," ";"');
    });
  });

  describe('reserved platform keys', () => {
    const cases: [string, TagRule[]][] = [
      ['kubernetes.io/cluster/x', ['ReservedKey']],
      ['kubernetes.io/role', ['ReservedKey']],
      ['foo.kubernetes.io/x', ['ReservedKey']],
      ['a.b.kubernetes.io/x', ['ReservedKey']],
      ['Kubernetes.IO/x', ['ReservedKey']],
      ['kubernetes.io', ['ReservedKey']],
      ['sigs.k8s.io/cluster-api-provider-aws/role', ['ReservedKey']],
      ['openshift.io/x', ['ReservedKey']],
      ['infra.openshift.io/x', ['ReservedKey']],
      ['keymaster.dev/managed', ['ReservedKey']],
      ['tagging.keymaster.dev/x', ['ReservedKey']],
      ['Name', ['ReservedKey']],
      // IAM compares tag keys in conditions in any case: a variant is the reserved key to a policy.
      ['name', ['ReservedKey']],
      ['NAME', ['ReservedKey']],
      ['Sigs.K8s.io/cluster-api-provider-aws/cluster/victim', ['ReservedKey']],
      ['Name2', []],
      ['mykubernetes.io/x', []],
      ['kubernetes.iox/y', []],
      ['example.com/kubernetes.io', []],
      ['k8s.io/x', []],
    ];
    for (const [key, expected] of cases) {
      it(`${expected.length === 0 ? 'accepts' : 'refuses'} ${JSON.stringify(key)}`, () => {
        expect(rules(key)).to.deep.equal(expected);
      });
    }

    it('names the reserved key a variant stands for', () => {
      const [problem] = validateTag('NAME', 'v', origin);
      expect(problem?.message).to.contain('key "NAME"').and.contain('the reserved key "Name"');
    });

    it('takes a configured list instead of the default one', () => {
      const reservedKeys = { domains: ['example.com'], keys: ['Owner'] };
      expect(rules('sub.example.com/x', 'v', { reservedKeys })).to.deep.equal(['ReservedKey']);
      expect(rules('Owner', 'v', { reservedKeys })).to.deep.equal(['ReservedKey']);
      expect(rules('kubernetes.io/x', 'v', { reservedKeys })).to.deep.equal([]);
      expect(rules('Name', 'v', { reservedKeys })).to.deep.equal([]);
      expect(rules('OWNER', 'v', { reservedKeys })).to.deep.equal(['ReservedKey']);
    });
  });

  describe('ownership keys, whatever the reserved keys', () => {
    const reservedKeys = { domains: [], keys: [] };
    const cases: [string, TagRule[]][] = [
      ['sigs.k8s.io/cluster-api-provider-aws/cluster/victim', ['OwnershipKey']],
      ['kubernetes.io/cluster/victim', ['OwnershipKey']],
      ['Kubernetes.io/Cluster/victim', ['OwnershipKey']],
      ['SIGS.K8S.IO/cluster-api-provider-aws/cluster/victim', ['OwnershipKey']],
      ['kubernetes.io/cluster/tenant-a_prod-EKS', ['OwnershipKey']],
      // A layer that set it would hand the cluster's resources to the cluster it names.
      ['elbv2.k8s.aws/cluster', ['OwnershipKey']],
      ['ELBV2.k8s.aws/Cluster', ['OwnershipKey']],
      ['elbv2.k8s.aws/resource', []],
      ['kubernetes.io/role', []],
    ];
    for (const [key, expected] of cases) {
      it(`${expected.length === 0 ? 'accepts' : 'refuses'} ${JSON.stringify(key)}`, () => {
        expect(rules(key, 'owned', { reservedKeys })).to.deep.equal(expected);
      });
    }
  });

  describe('whitespace around keys', () => {
    // AWS keeps it: `team ` is another key than `team`, which looks the same in every listing.
    const cases: [string, TagRule[]][] = [
      ['team ', ['KeyWhitespace']],
      [' team', ['KeyWhitespace']],
      ['\u00a0team', ['KeyWhitespace']],
      ['team\u3000', ['KeyWhitespace']],
      ['team name', []],
      [' sigs.k8s.io/cluster-api-provider-aws/cluster/victim', ['KeyWhitespace', 'ReservedKey']],
      ['Name ', ['KeyWhitespace', 'ReservedKey']],
    ];
    for (const [key, expected] of cases) {
      it(`${expected.length === 0 ? 'accepts' : 'refuses'} ${JSON.stringify(key)}`, () => {
        expect(rules(key)).to.deep.equal(expected);
      });
    }
    it('accepts whitespace around values', () => {
      expect(rules('team', ' analytics ')).to.deep.equal([]);
    });
  });

  describe('stricter rules of services', () => {
    const imds = { services: [SERVICE_TAG_RULES.ec2InstanceMetadata] };
    const cases: [string, string, string, TagValidationOptions, TagRule[]][] = [
      ['IMDS refuses spaces in keys', 'team name', 'v', imds, ['KeyCharacters']],
      ['IMDS refuses / in keys', 'team/name', 'v', imds, ['KeyCharacters']],
      ['IMDS refuses letters outside ASCII in keys', 'équipe', 'v', imds, ['KeyCharacters']],
      ['IMDS keeps values to the general set', 'team', 'a b/c', imds, []],
      ['IMDS refuses the key _index', '_index', 'v', imds, ['ForbiddenKey']],
      ['IMDS refuses the key ..', '..', 'v', imds, ['ForbiddenKey']],
      ['RDS reserves rds: in keys', 'RDS:x', 'v', { services: [SERVICE_TAG_RULES.rds] }, ['ReservedPrefix']],
      ['RDS reserves rds: in values', 'k', 'rds:x', { services: [SERVICE_TAG_RULES.rds] }, ['ReservedPrefix']],
      [
        'DynamoDB refuses @',
        'a@b',
        'c@d',
        { services: [SERVICE_TAG_RULES.dynamodb] },
        ['KeyCharacters', 'ValueCharacters'],
      ],
      // `,` breaks the general set already: it is reported once, not again for DynamoDB.
      [
        'a character both refuse is reported once',
        'a,b',
        'v',
        { services: [SERVICE_TAG_RULES.dynamodb] },
        ['KeyCharacters'],
      ],
    ];
    for (const [name, key, value, options, expected] of cases) {
      it(name, () => {
        expect(rules(key, value, options)).to.deep.equal(expected);
      });
    }
    it('names the service in the message', () => {
      const [problem] = validateTag('team name', 'v', origin, imds);
      expect(problem?.message).to.contain('EC2 instance tags in instance metadata refuses " " in keys');
    });
  });

  it('escapes control and bidirectional characters of the key in messages, so they cannot reorder what is shown', () => {
    const problems = validateTag('tenant\u202e\u009b', 'v', origin);
    expect(problems.map(({ rule }) => rule)).to.deep.equal(['KeyCharacters']);
    expect(problems[0]?.key, 'the key itself, as given').to.equal('tenant\u202e\u009b');
    expect(problems[0]?.message)
      .to.contain('key "tenant\\u202e\\u009b"')
      .and.contain('the key holds "\\u202e" "\\u009b"')
      .and.not.match(/[\u202e\u009b]/);
  });

  it('reports every broken rule with a stable code and a message naming layer, object, key and rule', () => {
    const problems = validateTag('aws:a,b', 'x'.repeat(300), origin);
    expect(problems.map(({ code }) => code)).to.deep.equal([
      'ERR_KEYMASTER_TAGGING_VALUE_LENGTH',
      'ERR_KEYMASTER_TAGGING_RESERVED_PREFIX',
      'ERR_KEYMASTER_TAGGING_KEY_CHARACTERS',
    ]);
    expect(problems[0]).to.deep.include({
      layer: 'Account',
      object: 'AWSClusterRoleIdentity/tenant-b',
      key: 'aws:a,b',
    });
    expect(problems[0]?.message).to.equal(
      'Account layer, AWSClusterRoleIdentity/tenant-b, key "aws:a,b": ' +
        'the value is 300 characters long; AWS allows 0-256 (rule ValueLength)',
    );
  });
});

describe('validateTags', () => {
  it('leaves invalid tags out and keeps the others', () => {
    const checked = validateTags(
      [
        { key: 'team', value: 'analytics' },
        { key: 'kubernetes.io/role', value: 'x' },
        { key: 'cost-center', value: '42', overridePolicy: 'Deny' },
      ],
      origin,
    );
    expect(checked.valid).to.deep.equal([
      { key: 'team', value: 'analytics' },
      { key: 'cost-center', value: '42', overridePolicy: 'Deny' },
    ]);
    expect(checked.problems.map(({ key, rule }) => [key, rule])).to.deep.equal([['kubernetes.io/role', 'ReservedKey']]);
  });

  it('keeps the first of two entries with one key', () => {
    const checked = validateTags(
      [
        { key: 'team', value: 'a' },
        { key: 'team', value: 'b' },
      ],
      origin,
    );
    expect(checked.valid).to.deep.equal([{ key: 'team', value: 'a' }]);
    expect(checked.problems.map(({ rule }) => rule)).to.deep.equal(['DuplicateKey']);
  });

  it('counts keys that differ only in case as one key, naming the first', () => {
    const checked = validateTags(
      [
        { key: 'team', value: 'a' },
        { key: 'Team', value: 'b' },
      ],
      origin,
    );
    expect(checked.valid).to.deep.equal([{ key: 'team', value: 'a' }]);
    expect(checked.problems.map(({ key, rule }) => [key, rule])).to.deep.equal([['Team', 'DuplicateKey']]);
    expect(checked.problems[0]?.message).to.contain('"team"');
  });
});

describe('assertValidTags', () => {
  it('throws a TaggingError listing every problem', () => {
    const attempt = () =>
      assertValidTags(
        [
          { key: 'Name', value: 'x' },
          { key: 'a;b', value: 'x' },
        ],
        origin,
      );
    expect(attempt).to.throw(InvalidTagsError);
    try {
      attempt();
    } catch (error) {
      expect(error).to.be.instanceOf(TaggingError).and.instanceOf(KeymasterError);
      const invalid = error as InvalidTagsError;
      expect(invalid.code).to.equal('ERR_KEYMASTER_TAGGING_INVALID_TAGS');
      expect(invalid.problems.map(({ rule }) => rule)).to.deep.equal(['ReservedKey', 'KeyCharacters']);
      expect(invalid.message).to.contain('key "Name"').and.contain('key "a;b"');
      expect(invalid.hint).to.be.a('string');
    }
  });

  it('returns for valid tags', () => {
    expect(() => assertValidTags([{ key: 'team', value: 'a' }], origin)).not.to.throw();
  });
});

describe('countUserTags', () => {
  it('leaves out the tags of AWS, whatever their case', () => {
    expect(countUserTags({ team: 'a', 'aws:cloudformation:stack-id': 'x', 'AWS:x': 'y', Name: 'n' })).to.equal(2);
  });
});
