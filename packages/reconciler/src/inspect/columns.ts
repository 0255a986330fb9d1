import { characterCount, displayText } from '@keymaster/api';

/**
 * Rows as aligned columns, kubectl style: each cell padded to its column's width, three spaces
 * between, no space at the end of a line. Cells hold tenants' and AWS's text: their control and bidirectional
 * characters are escaped, so a value cannot move the cursor or make a line read backwards.
 */
export function columns(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const lines = [header, ...rows].map((row) => row.map(displayText));
  const widths = header.map((_, column) => Math.max(...lines.map((line) => characterCount(line[column] ?? ''))));
  return lines.map((line) =>
    line
      .map((cell, column) => cell + ' '.repeat(widths[column]! - characterCount(cell)))
      .join('   ')
      .trimEnd(),
  );
}
