import { expect } from 'chai';
import { displayText, quoteText, validateObject, formatCause, API_VERSION } from '../src/index.js';

// Characters that make a terminal, or `kubectl describe`, show something other than what is there.
const UNSAFE: [string, string][] = [
  ['NUL', '\u0000'],
  ['a line feed', '\n'],
  ['a carriage return', '\r'],
  ['ESC, which starts terminal escape sequences', '\u001b'],
  ['DEL', '\u007f'],
  ['a C1 control (CSI)', '\u009b'],
  ['the right-to-left override', '\u202e'],
  ['the left-to-right embedding', '\u202a'],
  ['the pop directional formatting', '\u202c'],
  ['the right-to-left isolate', '\u2067'],
  ['the pop directional isolate', '\u2069'],
  ['the left-to-right mark', '\u200e'],
  ['the right-to-left mark', '\u200f'],
  ['the Arabic letter mark', '\u061c'],
  ['the line separator', '\u2028'],
  ['the paragraph separator', '\u2029'],
];

describe('displayText', () => {
  for (const [name, character] of UNSAFE) {
    it(`shows ${name} as its \\u escape`, () => {
      const escape = `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
      expect(displayText(`key${character}x`)).to.equal(`key${escape}x`);
    });
  }

  it('leaves other text as it is: any script, spaces, emoji, quotes and backslashes', () => {
    const text = 'équipe 東京\u00a0cost-center "a\\b" \u{1F600} مرحبا';
    expect(displayText(text)).to.equal(text);
  });

  it('is idempotent, so that a message escaped where it is built may be escaped again on its way out', () => {
    const once = displayText('a\u202eb\nc');
    expect(once).to.equal('a\\u202eb\\u000ac');
    expect(displayText(once)).to.equal(once);
  });
});

describe('quoteText', () => {
  it('quotes like JSON and escapes what JSON leaves raw (DEL, C1, bidirectional characters)', () => {
    expect(quoteText('tenant\u202e')).to.equal('"tenant\\u202e"');
    expect(quoteText('a"b\tc\u0085')).to.equal('"a\\"b\\tc\\u0085"');
  });

  it('quotes user input in validation messages', () => {
    const identity = {
      apiVersion: API_VERSION,
      kind: 'AWSClusterRoleIdentity',
      metadata: { name: 'tenant-b' },
      spec: { roleARN: 'arn:aws:iam::333333333333:role/\u202eadmin' },
    };
    const [message] = validateObject(identity).map(formatCause);
    expect(message).to.contain('role/\\u202eadmin').and.not.contain('\u202e');
  });
});
