const UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/gy;

/**
 * Parses a Go duration (`30s`, `10m`, `1h30m`, `1.5h`, `250ms`) into milliseconds, or returns
 * undefined when the text is not one. Negative durations are not accepted: no flag wants one.
 */
export function parseDuration(text: string): number | undefined {
  if (text === '0') return 0;
  PART.lastIndex = 0;
  let total = 0;
  let consumed = 0;
  for (let match = PART.exec(text); match; match = PART.exec(text)) {
    total += Number(match[1]) * UNITS[match[2]!]!;
    consumed = PART.lastIndex;
  }
  return consumed > 0 && consumed === text.length ? total : undefined;
}

/** Formats milliseconds the way Go prints durations: `10m0s`, `1h30m0s`, `250ms`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor((ms % 3_600_000) / 60_000);
  const seconds = (ms % 60_000) / 1000;
  return `${hours ? `${hours}h` : ''}${hours || minutes ? `${minutes}m` : ''}${seconds}s`;
}
