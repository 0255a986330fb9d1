import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { LONG_PAGE_LINES, longPages, tableOfContents, withTableOfContents } from '../scripts/toc.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

describe('tables of contents of the long docs pages (scripts/toc.ts)', () => {
  const table: [string, string, string][] = [
    ['lists ## and ###, not # or ####', '# T\n## A\n### B\n#### C\n', '- [A](#a)\n  - [B](#b)'],
    [
      "takes GitHub's anchors: punctuation and backticks dropped",
      '## Ready, but `0/0` (yes)\n',
      '- [Ready, but `0/0` (yes)](#ready-but-00-yes)',
    ],
    [
      'numbers repeated anchors, counting every level',
      '## Upgrade\n#### Upgrade\n### Upgrade\n',
      '- [Upgrade](#upgrade)\n  - [Upgrade](#upgrade-2)',
    ],
    ['skips headings in code blocks', '## A\n```yaml\n# Helm\n## not a heading\n```\n## B\n', '- [A](#a)\n- [B](#b)'],
  ];
  for (const [title, markdown, toc] of table)
    it(title, () => {
      expect(tableOfContents(markdown)).to.equal(toc);
    });

  it('puts the table before the first ## and replaces it in place when run again', () => {
    const page = '# Title\n\nIntro.\n\n## A\n\ntext\n\n## B\n';
    const once = withTableOfContents(page);
    expect(once).to.match(
      /^# Title\n\nIntro\.\n\n<!-- toc[^\n]*-->\n\n- \[A\]\(#a\)\n- \[B\]\(#b\)\n\n<!-- \/toc -->\n\n## A\n/,
    );
    expect(withTableOfContents(once)).to.equal(once);
    expect(withTableOfContents(once.replace('## B', '## C')))
      .to.include('- [C](#c)')
      .and.not.include('(#b)');
  });

  it(`is given to every docs page over ${LONG_PAGE_LINES} lines but the generated API reference`, () => {
    const pages = longPages(ROOT);
    expect(pages).to.include.members(['docs/operations.md', 'docs/security.md', 'docs/tagging.md']);
    expect(pages).not.to.include('docs/api.md');
  });
});
