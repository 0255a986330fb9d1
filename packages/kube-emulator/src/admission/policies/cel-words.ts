/**
 * cel-go's words for what goes wrong with an admission expression, from the errors of the emulator's
 * CEL engine (@marcbachmann/cel-js): kube-apiserver shows cel-go's, and clients see them in refusals.
 */

/** What cel-js says, and where, when it says it at all. */
interface CelJsError {
  message: string;
  summary?: string;
  code?: string;
  node?: { pos?: number; op?: string; args?: unknown };
}

const asCelJsError = (error: unknown): CelJsError => (error instanceof Error ? error : { message: String(error) });

const summaryOf = (error: CelJsError): string => (error.summary ?? error.message).split('\n')[0]!;

/** cel-go's checker messages for the mistakes cel-js words otherwise; the rest keep cel-js's words. */
function checkerMessage(summary: string): string {
  const undeclared = /^Unknown variable: (.+)$/.exec(summary);
  if (undeclared) return `undeclared reference to '${undeclared[1]}' (in container '')`;
  const field = /^No such key: (.+)$/.exec(summary);
  if (field) return `undefined field '${field[1]}'`;
  return summary;
}

/**
 * `ERROR: <input>:1:5: MESSAGE` and the source line with a `....^` under the column, as cel-go's
 * issues print a compile error (columns count characters, from 1).
 */
export function compileIssue(expression: string, error: unknown): string {
  const celError = asCelJsError(error);
  const message = checkerMessage(summaryOf(celError));
  let position = Math.min(celError.node?.pos ?? 0, expression.length);
  // cel-go places a field selection at its dot, cel-js at the field's name.
  if (message.startsWith('undefined field') && expression[position - 1] === '.') position -= 1;
  const before = expression.slice(0, position);
  const lineNumber = before.split('\n').length;
  const lineStart = before.lastIndexOf('\n') + 1;
  // Columns count characters (code points), as cel-go's do.
  const column = expression.slice(lineStart, position).replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, '.').length;
  const line = expression.slice(lineStart).split('\n')[0]!.replaceAll('\t', ' ');
  return `ERROR: <input>:${lineNumber}:${column + 1}: ${message}\n | ${line}\n | ${'.'.repeat(column)}^`;
}

/** A type as cel-go prints it: `list(string)`, `map(string, int)`, `google.protobuf.Timestamp`. */
export function celGoTypeName(type: string): string {
  const named: Record<string, string> = {
    timestamp: 'google.protobuf.Timestamp',
    duration: 'google.protobuf.Duration',
    null: 'null_type',
  };
  return (named[type] ?? type).replaceAll('<', '(').replaceAll('>', ')');
}

/** An evaluation error as cel-go words it (`no such key: x`). */
export function runtimeError(error: unknown): string {
  const celError = asCelJsError(error);
  if (celError.code === 'no_such_key') {
    const args = celError.node?.args;
    const key =
      Array.isArray(args) && typeof args[1] === 'string'
        ? args[1]
        : /^No such key: (.+)$/.exec(summaryOf(celError))?.[1];
    if (key !== undefined) return `no such key: ${key}`;
  }
  return summaryOf(celError);
}
