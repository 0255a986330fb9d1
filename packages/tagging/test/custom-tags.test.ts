import { expect } from 'chai';
import { parseCustomTags } from '../src/index.js';

const origin = { layer: 'Account', object: 'AccountClaim tenant-b/example-link' } as const;
const parse = (text: string) => parseCustomTags(text, origin);
const lineRules = (text: string) => parse(text).problems.map(({ line, rule }) => [line, rule]);

describe('parseCustomTags', () => {
  it("reads the AccountClaim example's lines", () => {
    expect(parse('red-hat-managed=true\nfoo=bar\n').tags).to.deep.equal([
      { key: 'red-hat-managed', value: 'true' },
      { key: 'foo', value: 'bar' },
    ]);
  });

  const cases: { name: string; text: string; tags: { key: string; value: string }[] }[] = [
    { name: 'splits on the first "="', text: 'query=a=b', tags: [{ key: 'query', value: 'a=b' }] },
    { name: 'trims keys and values', text: '  team =  analytics  ', tags: [{ key: 'team', value: 'analytics' }] },
    { name: 'keeps spaces inside', text: 'cost center=R and D', tags: [{ key: 'cost center', value: 'R and D' }] },
    { name: 'accepts an empty value', text: 'flag=', tags: [{ key: 'flag', value: '' }] },
    {
      name: 'skips blank lines',
      text: '\n  \na=1\n\n\t\nb=2\n',
      tags: [
        { key: 'a', value: '1' },
        { key: 'b', value: '2' },
      ],
    },
    {
      name: 'reads CRLF and CR line ends',
      text: 'a=1\r\nb=2\rc=3',
      tags: ['a', 'b', 'c'].map((key, i) => ({ key, value: `${i + 1}` })),
    },
    { name: 'reads empty text as no tags', text: '', tags: [] },
  ];
  for (const { name, text, tags } of cases) {
    it(name, () => {
      const parsed = parse(text);
      expect(parsed.tags).to.deep.equal(tags);
      expect(parsed.problems).to.deep.equal([]);
    });
  }

  it('refuses malformed lines with their line numbers and keeps the good ones', () => {
    const parsed = parse('a=1\nno separator\n\n=orphan\nb=2');
    expect(parsed.tags).to.deep.equal([
      { key: 'a', value: '1' },
      { key: 'b', value: '2' },
    ]);
    expect(parsed.problems).to.deep.equal([
      {
        code: 'ERR_KEYMASTER_TAGGING_CUSTOM_TAGS_SYNTAX',
        rule: 'Syntax',
        layer: 'Account',
        object: 'AccountClaim tenant-b/example-link',
        line: 2,
        message:
          'Account layer, AccountClaim tenant-b/example-link, line 2: expected key=value but the line has no "=" (rule Syntax)',
      },
      {
        code: 'ERR_KEYMASTER_TAGGING_CUSTOM_TAGS_SYNTAX',
        rule: 'Syntax',
        layer: 'Account',
        object: 'AccountClaim tenant-b/example-link',
        line: 4,
        message:
          'Account layer, AccountClaim tenant-b/example-link, line 4: expected key=value but the line has no key before "=" (rule Syntax)',
      },
    ]);
  });

  it('validates every tag, naming its line and key', () => {
    expect(lineRules('ok=1\nkubernetes.io/x=y\naws:x=1\nteam=a;b')).to.deep.equal([
      [2, 'ReservedKey'],
      [3, 'ReservedPrefix'],
      [4, 'ValueCharacters'],
    ]);
    expect(parse('\n\nName=x').problems[0]?.message).to.equal(
      'Account layer, AccountClaim tenant-b/example-link, line 3, key "Name": ' +
        'the key "Name" is reserved for the platform (rule ReservedKey)',
    );
  });

  it('reports a repeated key and keeps its first line', () => {
    const parsed = parse('team=a\nteam=b');
    expect(parsed.tags).to.deep.equal([{ key: 'team', value: 'a' }]);
    expect(lineRules('team=a\nteam=b')).to.deep.equal([[2, 'DuplicateKey']]);
  });

  it('lists problems in line order', () => {
    expect(lineRules('bad\na=1\nx,y=1\n=\n')).to.deep.equal([
      [1, 'Syntax'],
      [3, 'KeyCharacters'],
      [4, 'Syntax'],
    ]);
  });
});
