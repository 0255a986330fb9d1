import { parseArgs, type ParseArgsConfig } from 'node:util';
import { KeymasterError } from '@keymaster/api';
import { FlagError } from './flags.js';

/** A command's flags for node:util's parseArgs, each with a line of help. */
export type FlagSpecs = Record<string, NonNullable<ParseArgsConfig['options']>[string] & { help: string }>;

type ParsedFlags<T extends FlagSpecs> = ReturnType<
  typeof parseArgs<{ args: string[]; options: T; strict: true; allowPositionals: false }>
>['values'];

/** Parses a command's flags strictly; a mistake names the flag and points at --help. */
export function parseCommandFlags<T extends FlagSpecs>(command: string, specs: T, args: string[]): ParsedFlags<T> {
  return parseCommandLine(command, specs, args, false).values;
}

/** Parses a command's flags strictly, and its arguments when it takes some (`allowPositionals`). */
export function parseCommandLine<T extends FlagSpecs>(
  command: string,
  specs: T,
  args: string[],
  allowPositionals = true,
): { values: ParsedFlags<T>; positionals: string[] } {
  try {
    const { values, positionals } = parseArgs({ args, options: specs, strict: true, allowPositionals });
    return { values, positionals };
  } catch (error) {
    throw new KeymasterError('ERR_KEYMASTER_INVALID_FLAG', (error as Error).message, {
      hint: `Run \`keymaster ${command} --help\` for the flags.`,
    });
  }
}

/** A TCP port flag: 0 (a free port) to 65535. */
export function portFlag(flag: string, value: string | undefined): number {
  if (value === undefined) return 0;
  const port = Number(value);
  if (value.trim() === '' || !Number.isInteger(port) || port < 0 || port > 65535)
    throw new FlagError(flag, value, 'is not a port from 0 to 65535', 'Use 0 for a free port.');
  return port;
}

export function commandHelp(usage: string, description: string, specs: FlagSpecs): string {
  const names = Object.entries(specs).map(([name, spec]) => `${spec.short ? `-${spec.short}, ` : '    '}--${name}`);
  const width = Math.max(...names.map((name) => name.length));
  return [
    `Usage: ${usage}`,
    '',
    description,
    '',
    'Flags:',
    ...Object.values(specs).map((spec, index) => {
      const fallback = typeof spec.default === 'string' && spec.default !== '' ? ` (default ${spec.default})` : '';
      return `  ${names[index]!.padEnd(width)}  ${spec.help}${fallback}`;
    }),
  ].join('\n');
}
