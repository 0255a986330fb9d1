import { expect } from 'chai';
import { clusterRow } from '../../src/demo/clusters.js';
import { LiveView, wrapLine, type Output } from '../../src/demo/live.js';
import { awsCluster, readyStatus, refusedStatus } from './fixtures.js';

class Capture implements Output {
  readonly writes: string[] = [];
  constructor(
    readonly isTTY: boolean,
    readonly columns?: number,
  ) {}
  write(text: string) {
    this.writes.push(text);
    return true;
  }
}

const pending = clusterRow(awsCluster('tenant-b', 'analytics-dev'));
const ready = clusterRow(awsCluster('tenant-b', 'analytics-dev', readyStatus));
const refused = clusterRow(awsCluster('tenant-c', 'reporting-prod', refusedStatus));

describe('demo: live view', () => {
  describe('on a terminal', () => {
    it('draws a frame, then redraws it in place, going up exactly the lines it drew', () => {
      const out = new Capture(true, 200);
      const view = new LiveView(out);
      view.update([pending], 'Converging… 0.1 s');
      expect(out.writes).to.have.length(1);
      const first = out.writes[0]!;
      expect(first.startsWith('Converging… 0.1 s\n\nCLUSTER')).to.equal(true);
      const drawn = first.split('\n').length - 1;
      view.update([ready], 'Converged.');
      expect(out.writes[1]!.startsWith(`\x1b[${drawn}F\x1b[J`)).to.equal(true);
      expect(out.writes[1]).to.include('analytics-dev').and.include('333333333333');
    });

    it('writes nothing when nothing changed', () => {
      const out = new Capture(true, 200);
      const view = new LiveView(out);
      view.update([ready], 'Converged.');
      view.update([ready], 'Converged.');
      expect(out.writes).to.have.length(1);
    });

    it('shows the footer below the table at once, and keeps it on later frames', () => {
      const out = new Capture(true, 200);
      const view = new LiveView(out);
      view.update([ready, refused], 'Converged.');
      view.setFooter(['Refused:    1']);
      expect(out.writes).to.have.length(2);
      expect(out.writes[1]!.trimEnd().endsWith('\n\nRefused:    1')).to.equal(true);
      view.update([ready], 'Converged.');
      expect(out.writes[2]!.trimEnd().endsWith('Refused:    1')).to.equal(true);
    });

    it('drops columns to fit 80 columns and says which; shows them all at 200', () => {
      const narrow = new Capture(true, 80);
      new LiveView(narrow).update([ready, refused], 'Converged.');
      const lines = narrow.writes[0]!.split('\n').slice(0, -1);
      for (const line of lines) expect(line.length, line).to.be.at.most(80);
      expect(
        lines.some((line) => line.endsWith('…')),
        'no line cut',
      ).to.equal(false);
      expect(lines).to.include('(hidden to fit 80 columns: IDENTITY CHAIN, ALLOWED, ACCOUNT, IN SYNC)');
      const wide = new Capture(true, 200);
      new LiveView(wide).update([ready, refused], 'Converged.');
      expect(wide.writes[0]).to.include('IDENTITY CHAIN').and.not.include('hidden');
    });

    it('wraps lines wider than the terminal, so that the redraw stays in place and nothing is cut', () => {
      const out = new Capture(true, 40);
      const view = new LiveView(out);
      const fix = `  1. ${'add tenant-c to allowedNamespaces of AWSClusterRoleIdentity/tenant-b '.repeat(4)}(the end)`;
      view.update([ready, refused], 'Converged.');
      view.setFooter(['Fix (1):', fix]);
      // The redraw: after going up and clearing, the frame.
      const lines = out.writes[1]!.split('\x1b[J')[1]!.split('\n').slice(0, -1);
      for (const line of lines) expect(line.length, line).to.be.at.most(40);
      expect(lines.some((line) => line.endsWith('…'))).to.equal(false);
      const wrapped = lines.slice(lines.indexOf('Fix (1):') + 1);
      expect(wrapped.length).to.be.greaterThan(1);
      expect(wrapped.map((line) => line.trim()).join(' ')).to.equal(fix.trim());
      view.update([ready, refused], 'Converged.');
      expect(out.writes).to.have.length(2);
      view.update([ready], 'Converged.');
      expect(out.writes[2]!.startsWith(`\x1b[${lines.length}F\x1b[J`)).to.equal(true);
    });
  });

  describe('wrapLine', () => {
    const table: [string, string, number, string[]][] = [
      ['fits', 'abc def', 7, ['abc def']],
      ['breaks at the last space that fits, indenting what follows', 'abc def ghi', 8, ['abc def', '  ghi']],
      [
        'keeps the indentation, two more on continuation lines',
        '    aa bb cc dd ee ff',
        14,
        ['    aa bb cc', '      dd ee ff'],
      ],
      ['breaks a word longer than the line', 'abcdefghij', 5, ['abcde', '  fgh', '  ij']],
      ['does not indent when the indentation leaves no room', '      a b c', 8, ['      a', 'b c']],
    ];
    for (const [title, line, width, lines] of table)
      it(title, () => {
        expect(wrapLine(line, width)).to.deep.equal(lines);
      });
  });

  describe('elsewhere (a pipe, CI)', () => {
    it('prints one line per cluster change, never escape sequences', () => {
      const out = new Capture(false);
      const view = new LiveView(out);
      view.update([pending, refused], 'Converging… 0.1 s');
      view.update([pending, refused], 'Converging… 0.4 s');
      view.update([ready, refused], 'Converged.');
      expect(out.writes).to.have.length(3);
      expect(out.writes[0]).to.match(/^tenant-b\/analytics-dev: .*ready -\n$/);
      expect(out.writes[1]).to.match(/^tenant-c\/reporting-prod: .*ready False \(PrincipalUsageUnauthorized\)\n$/);
      expect(out.writes[2]).to.match(/^tenant-b\/analytics-dev: .*ready True\n$/);
      expect(out.writes.join('')).not.to.include('\x1b');
    });

    it('prints the footer once, and again only when it changes', () => {
      const out = new Capture(false);
      const view = new LiveView(out);
      view.update([ready], 'Converged.');
      view.setFooter(['Converged in 0.3 s', 'Refused:    0']);
      view.update([ready], 'Converged.');
      view.setFooter(['Converged in 0.3 s', 'Refused:    0']);
      expect(out.writes.slice(1)).to.deep.equal(['Converged in 0.3 s\nRefused:    0\n']);
      view.setFooter(['Converged in 0.3 s', 'Refused:    1']);
      expect(out.writes.slice(2)).to.deep.equal(['Converged in 0.3 s\nRefused:    1\n']);
    });
  });
});
