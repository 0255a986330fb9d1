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
 * A line wider than the terminal as lines that fit, broken at spaces where it can be: the terminal
 * would wrap it anyway, and the redraw would then miscount the lines to go up. Nothing is cut (a fix
 * must be read whole); continuation lines keep the line's indentation, two more when there is room.
 */
export function wrapLine(line: string, width: number): string[] {
  if (line.length <= width) return [line];
  const indent = /^ */.exec(line)![0].length;
  const hanging = ' '.repeat(indent + 2 < width / 2 ? indent + 2 : 0);
  const lines: string[] = [];
  let rest = line;
  let prefix = '';
  while (prefix.length + rest.length > width) {
    const room = width - prefix.length;
    const space = rest.lastIndexOf(' ', room);
    // Break at the last space that leaves something on this line, else in the middle of a word.
    const end = space > indent ? space : room;
    lines.push(`${prefix}${rest.slice(0, end)}`.trimEnd());
    rest = rest.slice(end).trimStart();
    prefix = hanging;
  }
  return [...lines, `${prefix}${rest}`];
}

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
    const table = renderTable(this.#rows, width);
    const hidden = table.hidden.length > 0 ? [`(hidden to fit ${width} columns: ${table.hidden.join(', ')})`] : [];
    const frame = [this.#status, '', ...table.lines, ...hidden, ...footer].flatMap((line) => wrapLine(line, width));
    if (frame.join('\n') === this.#frame.join('\n')) return;
    this.out.write(`${up(this.#frame.length)}${frame.join('\n')}\n`);
    this.#frame = frame;
  }
}
