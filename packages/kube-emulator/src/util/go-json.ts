/**
 * The errors of Go's encoding/json, which kube-apiserver returns in its 400s for bodies and
 * tokens that are not JSON: the scanner's syntax errors (`invalid character 'x' looking for
 * beginning of value`, `unexpected end of JSON input`) and Unmarshal's type errors.
 */

const SPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isHex = (c: number): boolean => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

const NAMED_ESCAPES: Record<number, string> = {
  0x07: '\\a',
  0x08: '\\b',
  0x0c: '\\f',
  0x0a: '\\n',
  0x0d: '\\r',
  0x09: '\\t',
  0x0b: '\\v',
  0x5c: '\\\\',
};

/** Go's quoteChar: the byte as a Go character literal (`'x'`, `'\n'`, `'\x00'`, `'\''`). */
function quoteChar(c: number): string {
  if (c === 0x27) return "'\\''";
  if (c === 0x22) return `'"'`;
  if (NAMED_ESCAPES[c] !== undefined) return `'${NAMED_ESCAPES[c]}'`;
  if (c < 0x20 || c === 0x7f) return `'\\x${c.toString(16).padStart(2, '0')}'`;
  // string(byte) in Go is the rune of that value: U+0080..U+009F are not printable, the rest are.
  if (c >= 0x80 && c < 0xa0) return `'\\u${c.toString(16).padStart(4, '0')}'`;
  return `'${String.fromCharCode(c)}'`;
}

type Step = (c: number) => string | undefined;

/**
 * encoding/json's scanner over `data`: the first syntax error, as Go words it, or undefined when
 * the bytes are one valid JSON value.
 */
export function goJsonSyntaxError(data: Buffer | string): string | undefined {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const stack: ('key' | 'value' | 'array')[] = [];
  let step: Step;
  // Set once the top-level value has ended (Go's endTop).
  const scan = { done: false };
  const ended = (): boolean => scan.done;
  const fail = (c: number, context: string): string => `invalid character ${quoteChar(c)} ${context}`;

  const endValue: Step = (c) => {
    if (stack.length === 0) {
      scan.done = true;
      return endTop(c);
    }
    if (SPACE.has(c)) {
      step = endValue;
      return undefined;
    }
    const top = stack[stack.length - 1];
    if (top === 'key') {
      if (c === 0x3a) {
        stack[stack.length - 1] = 'value';
        step = beginValue;
        return undefined;
      }
      return fail(c, 'after object key');
    }
    if (top === 'value') {
      if (c === 0x2c) {
        stack[stack.length - 1] = 'key';
        step = beginString;
        return undefined;
      }
      if (c === 0x7d) {
        stack.pop();
        step = endValue;
        return undefined;
      }
      return fail(c, 'after object key:value pair');
    }
    if (c === 0x2c) {
      step = beginValue;
      return undefined;
    }
    if (c === 0x5d) {
      stack.pop();
      step = endValue;
      return undefined;
    }
    return fail(c, 'after array element');
  };
  const endTop: Step = (c) => {
    step = endTop;
    return SPACE.has(c) ? undefined : fail(c, 'after top-level value');
  };
  const literal =
    (name: string, rest: string): Step =>
    (c) => {
      const expected = rest.charCodeAt(0);
      if (c !== expected) return fail(c, `in literal ${name} (expecting ${quoteChar(expected)})`);
      step = rest.length === 1 ? endValue : literal(name, rest.slice(1));
      return undefined;
    };
  const inString: Step = (c) => {
    if (c === 0x22) step = endValue;
    else if (c === 0x5c) step = inStringEscape;
    else if (c < 0x20) return fail(c, 'in string literal');
    return undefined;
  };
  const unicodeEscape =
    (left: number): Step =>
    (c) => {
      if (!isHex(c)) return fail(c, 'in \\u hexadecimal character escape');
      step = left === 1 ? inString : unicodeEscape(left - 1);
      return undefined;
    };
  const inStringEscape: Step = (c) => {
    if ([0x62, 0x66, 0x6e, 0x72, 0x74, 0x5c, 0x2f, 0x22].includes(c)) {
      step = inString;
      return undefined;
    }
    if (c === 0x75) {
      step = unicodeEscape(4);
      return undefined;
    }
    return fail(c, 'in string escape code');
  };
  const exponentDigits: Step = (c) => (isDigit(c) ? undefined : endValue(c));
  const exponentSign: Step = (c) => {
    if (!isDigit(c)) return fail(c, 'in exponent of numeric literal');
    step = exponentDigits;
    return undefined;
  };
  const exponent: Step = (c) => {
    if (c === 0x2b || c === 0x2d) {
      step = exponentSign;
      return undefined;
    }
    return exponentSign(c);
  };
  const fractionDigits: Step = (c) => {
    if (isDigit(c)) return undefined;
    if (c === 0x65 || c === 0x45) {
      step = exponent;
      return undefined;
    }
    return endValue(c);
  };
  const dot: Step = (c) => {
    if (!isDigit(c)) return fail(c, 'after decimal point in numeric literal');
    step = fractionDigits;
    return undefined;
  };
  const zero: Step = (c) => {
    if (c === 0x2e) {
      step = dot;
      return undefined;
    }
    if (c === 0x65 || c === 0x45) {
      step = exponent;
      return undefined;
    }
    return endValue(c);
  };
  const digits: Step = (c) => (isDigit(c) ? undefined : zero(c));
  const negative: Step = (c) => {
    if (c === 0x30) step = zero;
    else if (isDigit(c)) step = digits;
    else return fail(c, 'in numeric literal');
    return undefined;
  };
  const beginValue: Step = (c) => {
    if (SPACE.has(c)) return undefined;
    switch (c) {
      case 0x7b:
        stack.push('key');
        step = beginStringOrEmpty;
        return undefined;
      case 0x5b:
        stack.push('array');
        step = beginValueOrEmpty;
        return undefined;
      case 0x22:
        step = inString;
        return undefined;
      case 0x2d:
        step = negative;
        return undefined;
      case 0x30:
        step = zero;
        return undefined;
      case 0x74:
        step = literal('true', 'rue');
        return undefined;
      case 0x66:
        step = literal('false', 'alse');
        return undefined;
      case 0x6e:
        step = literal('null', 'ull');
        return undefined;
    }
    if (isDigit(c)) {
      step = digits;
      return undefined;
    }
    return fail(c, 'looking for beginning of value');
  };
  const beginValueOrEmpty: Step = (c) => {
    if (SPACE.has(c)) return undefined;
    if (c === 0x5d) return endValue(c);
    return beginValue(c);
  };
  const beginString: Step = (c) => {
    if (SPACE.has(c)) return undefined;
    if (c === 0x22) {
      step = inString;
      return undefined;
    }
    return fail(c, 'looking for beginning of object key string');
  };
  const beginStringOrEmpty: Step = (c) => {
    if (SPACE.has(c)) return undefined;
    if (c === 0x7d) {
      stack[stack.length - 1] = 'value';
      return endValue(c);
    }
    return beginString(c);
  };

  step = beginValue;
  for (const c of bytes) {
    const error = step(c);
    if (error !== undefined) return error;
  }
  // At the end Go feeds a space (its eof): a number ends there; a cut literal fails on it.
  if (ended()) return undefined;
  const error = step(0x20);
  return ended() ? undefined : (error ?? 'unexpected end of JSON input');
}

/** The JSON type of a value as Go's UnmarshalTypeError names it (`array`, `string`, `number`, `bool`, `object`). */
export const goJsonType = (value: unknown): string =>
  Array.isArray(value)
    ? 'array'
    : value === null
      ? 'null'
      : typeof value === 'boolean'
        ? 'bool'
        : typeof value === 'object'
          ? 'object'
          : typeof value;

/** apimachinery's summarizeData: a body shown in an error, as text if it is an object, else as hex. */
export function summarizeData(data: Buffer, maxLength = 30): string {
  if (data.length === 0) return '<empty>';
  const shown = data.subarray(0, maxLength);
  const text = data[0] === 0x7b ? shown.toString('utf8') : shown.toString('hex');
  return data.length > maxLength ? `${text} ...` : text;
}
