/** One package's mocha run, read from the output of `pnpm -r run test`. */
export interface PackageResult {
  name: string;
  /** Undefined when mocha printed no "N passing" line (it crashed, or the script failed before it). */
  passed?: number;
  failed: number;
  pending: number;
  /** The failing tests' full titles (suites and test, as mocha's --grep matches them). */
  failures: string[];
}

// pnpm's header for each package's script: `> @keymaster/api@0.1.0 test /work/main/packages/api`.
const HEADER = /^> ((?:@[^/\s]+\/)?[^@\s]+)@\S* \S+ \//;
const COUNT = /^ +(\d+) (passing|failing|pending)\b/;
// The start of a failure in mocha's list after "N failing": `  1) outer suite`.
const FAILURE = /^ {2}(\d+)\) (.*)$/;
// eslint-disable-next-line no-control-regex -- ANSI colour codes, when mocha writes to a terminal
const ANSI = /\x1b\[[0-9;]*m/g;

/** Reads every package's counts and failing titles from the interleaved output, in order of appearance. */
export function parseResults(output: string): PackageResult[] {
  const results: PackageResult[] = [];
  let current: PackageResult | undefined;
  // The failure whose title is being read: mocha prints one title line per suite, the test's ends in ':'.
  let title: string[] | undefined;
  for (const line of output.replace(ANSI, '').split('\n')) {
    const header = HEADER.exec(line);
    if (header) {
      current = { name: header[1]!, failed: 0, pending: 0, failures: [] };
      results.push(current);
      title = undefined;
      continue;
    }
    if (!current) continue;
    if (title) {
      title.push(line.trim());
      if (line.endsWith(':')) {
        current.failures.push(title.join(' ').slice(0, -1));
        title = undefined;
      }
      continue;
    }
    const count = COUNT.exec(line);
    if (count) {
      const value = Number(count[1]);
      if (count[2] === 'passing') current.passed = value;
      else if (count[2] === 'failing') current.failed = value;
      else current.pending = value;
      continue;
    }
    const failure = current.failed > 0 ? FAILURE.exec(line) : null;
    if (failure && Number(failure[1]) === current.failures.length + 1) {
      title = [failure[2]!.trim()];
      if (line.endsWith(':')) {
        current.failures.push(title.join(' ').slice(0, -1));
        title = undefined;
      }
    }
  }
  return results;
}

/** Tests passed and failed across packages; a package that reported nothing counts as one failure. */
export function totals(results: readonly PackageResult[]): { passed: number; failed: number } {
  return {
    passed: results.reduce((sum, result) => sum + (result.passed ?? 0), 0),
    failed: results.reduce((sum, result) => sum + result.failed + (result.passed === undefined ? 1 : 0), 0),
  };
}

/**
 * The end of the run: the Node.js it ran on (CI runs the suites on several), a table per package, the
 * failing tests by name, and last `N passed, N failed`.
 */
export function renderSummary(results: readonly PackageResult[], nodeVersion: string): string[] {
  const rows = [
    ['PACKAGE', 'PASSED', 'FAILED', 'PENDING'],
    ...results.map((result) => [
      result.name,
      result.passed === undefined ? 'no result' : String(result.passed),
      String(result.failed),
      String(result.pending),
    ]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const table = rows.map(
    (row) =>
      `  ${row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('   ')}`,
  );
  const silent = results.filter((result) => result.passed === undefined);
  const failing = [
    ...results.flatMap((result) => result.failures.map((title) => `  ${result.name}: ${title}`)),
    ...silent.map((result) => `  ${result.name}: reported no result (see its output above)`),
  ];
  const { passed, failed } = totals(results);
  return [
    '',
    `Test summary on Node.js ${nodeVersion}`,
    ...table,
    ...(failing.length > 0 ? ['', 'Failing:', ...failing] : []),
    '',
    `${passed} passed, ${failed} failed`,
  ];
}
