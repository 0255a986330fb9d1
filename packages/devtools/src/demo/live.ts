import type { ClusterRow } from './clusters.js';
import { renderLine, renderTable } from './table.js';

/** Where the view writes: a terminal (redrawn in place) or anything else (lines appended). */
export interface Output {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

// ANSI: move to the start of the line `n` lines up, then clear everything below.
const up = (lines: number) => (lines > 0 ? `\x1b[${lines}F\x1b[J` : '');

/**
 * The clusters as they converge. On a terminal, one frame (a status line, the table and, once set,
 * the footer) is redrawn in place whenever it changes. Elsewhere (a pipe, a log, CI) each change of a
 * cluster is printed as one line, and the footer once.
 */
export class LiveView {
  #frame: string[] = [];
  #footer: string[] = [];
  #rows: readonly ClusterRow[] = [];
  #status = '';
  readonly #printed = new Map<string, string>();

  constructor(private readonly out: Output) {}

  update(rows: readonly ClusterRow[], status: string): void {
    this.#rows = rows;
    this.#status = status;
    if (this.out.isTTY) {
      this.#draw();
      return;
    }
    for (const row of rows) {
      const line = renderLine(row);
      const key = `${row.namespace}/${row.name}`;
      if (this.#printed.get(key) === line) continue;
      this.#printed.set(key, line);
      this.out.write(`${line}\n`);
    }
  }

  /** Lines shown below the table from now on (on a terminal), or printed when they change (elsewhere). */
  setFooter(lines: readonly string[]): void {
    if (lines.join('\n') === this.#footer.join('\n')) return;
    this.#footer = [...lines];
    if (this.out.isTTY) this.#draw();
    else this.out.write(`${lines.join('\n')}\n`);
  }

  #draw(): void {
    const width = this.out.columns ?? Infinity;
    const footer = this.#footer.length > 0 ? ['', ...this.#footer] : [];
    // A line wider than the terminal would wrap, and the redraw would miscount the lines to go up.
    const table = renderTable(this.#rows, width);
    const hidden = table.hidden.length > 0 ? [`(hidden to fit ${width} columns: ${table.hidden.join(', ')})`] : [];
    const frame = [this.#status, '', ...table.lines, ...hidden, ...footer].map((line) =>
      line.length > width ? `${line.slice(0, Math.max(0, width - 1))}…` : line,
    );
    if (frame.join('\n') === this.#frame.join('\n')) return;
    this.out.write(`${up(this.#frame.length)}${frame.join('\n')}\n`);
    this.#frame = frame;
  }
}
