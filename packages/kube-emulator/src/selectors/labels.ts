import { badRequest } from '../api/status.js';
import { labelValueErrors, qualifiedNameErrors } from '../resources/names.js';

/**
 * Label selectors, parsed as apimachinery's labels.Parse does (a port of its lexer and parser), so
 * that a bad selector is refused with the same words kubectl shows.
 */
type Operator = 'in' | 'notin' | '=' | '==' | '!=' | 'gt' | 'lt' | 'exists' | '!';

interface Requirement {
  key: string;
  operator: Operator;
  values: string[];
}

export type Labels = Record<string, string> | undefined;
export type LabelMatcher = (labels: Labels) => boolean;

type Token = 'identifier' | 'in' | 'notin' | '!' | '=' | '==' | '!=' | '>' | '<' | '(' | ')' | ',' | 'end' | 'error';
interface Item {
  token: Token;
  literal: string;
}

const SYMBOLS: Record<string, Token> = {
  '!': '!',
  '!=': '!=',
  '(': '(',
  ')': ')',
  ',': ',',
  '=': '=',
  '==': '==',
  '>': '>',
  '<': '<',
};
const isSpace = (char: string): boolean => char === ' ' || char === '\t' || char === '\r' || char === '\n';
const isSymbol = (char: string): boolean => '=!(),><'.includes(char);

/** The lexer: identifiers (and the keywords in/notin), the longest symbol, end of string. */
function lex(selector: string): Item[] {
  const items: Item[] = [];
  let at = 0;
  for (;;) {
    while (at < selector.length && isSpace(selector[at]!)) at++;
    if (at >= selector.length) return [...items, { token: 'end', literal: '' }];
    const start = at;
    if (isSymbol(selector[at]!)) {
      let last: Item | undefined;
      while (at < selector.length && isSymbol(selector[at]!)) {
        const candidate = selector.slice(start, at + 1);
        if (SYMBOLS[candidate]) last = { token: SYMBOLS[candidate], literal: candidate };
        else if (last) break;
        at++;
      }
      if (!last)
        return [...items, { token: 'error', literal: `error expected: keyword found '${selector.slice(start, at)}'` }];
      at = start + last.literal.length;
      items.push(last);
    } else {
      while (at < selector.length && !isSpace(selector[at]!) && !isSymbol(selector[at]!)) at++;
      const word = selector.slice(start, at);
      items.push({ token: word === 'in' || word === 'notin' ? word : 'identifier', literal: word });
    }
  }
}

const BINARY = 'in, notin, =, ==, !=, gt, lt';

class Parser {
  private position = 0;

  constructor(private readonly items: Item[]) {}

  /** In the Values context, the keywords in and notin are identifiers. */
  private peek(values = true): Item {
    const item = this.items[this.position]!;
    return values && (item.token === 'in' || item.token === 'notin') ? { ...item, token: 'identifier' } : item;
  }

  private next(values = true): Item {
    const item = this.peek(values);
    if (this.position < this.items.length - 1) this.position++;
    return item;
  }

  parse(): Requirement[] {
    const requirements: Requirement[] = [];
    for (;;) {
      const { token, literal } = this.peek();
      if (token === 'end') return requirements;
      if (token !== 'identifier' && token !== '!') {
        throw new Error(`found '${literal}', expected: !, identifier, or 'end of string'`);
      }
      requirements.push(this.requirement());
      const separator = this.next();
      if (separator.token === 'end') return requirements;
      if (separator.token !== ',') throw new Error(`found '${separator.literal}', expected: ',' or 'end of string'`);
      const after = this.peek();
      if (after.token !== 'identifier' && after.token !== '!') {
        throw new Error(`found '${after.literal}', expected: identifier after ','`);
      }
    }
  }

  private requirement(): Requirement {
    try {
      let operator: Operator | undefined;
      let { token, literal } = this.next();
      if (token === '!') {
        operator = '!';
        ({ token, literal } = this.next());
      }
      if (token !== 'identifier') throw new Error(`found '${literal}', expected: identifier`);
      const keyErrors = qualifiedNameErrors(literal);
      if (keyErrors.length > 0)
        throw new Error(`<nil>: Invalid value: ${JSON.stringify(literal)}: ${keyErrors.join('; ')}`);
      const following = this.peek().token;
      if (following === 'end' || following === ',') return checked(literal, operator ?? 'exists', []);
      if (operator === '!') return checked(literal, '!', []);
      operator = this.operator();
      const values = operator === 'in' || operator === 'notin' ? this.valueSet() : this.exactValue();
      return checked(literal, operator, values);
    } catch (error) {
      throw new Error(`unable to parse requirement: ${(error as Error).message}`, { cause: error });
    }
  }

  private operator(): Operator {
    const { token, literal } = this.next(false);
    const operators: Partial<Record<Token, Operator>> = {
      in: 'in',
      notin: 'notin',
      '=': '=',
      '==': '==',
      '!=': '!=',
      '>': 'gt',
      '<': 'lt',
    };
    const operator = operators[token];
    if (!operator) throw new Error(`found '${literal}', expected: ${BINARY}`);
    return operator;
  }

  private valueSet(): string[] {
    const open = this.next();
    if (open.token !== '(') throw new Error(`found '${open.literal}' expected: '('`);
    const { token, literal } = this.peek();
    if (token === ')') {
      this.next();
      return [''];
    }
    if (token !== 'identifier' && token !== ',')
      throw new Error(`found '${literal}', expected: ',', ')' or identifier`);
    const values = this.identifiers();
    if (this.next().token !== ')') throw new Error(`found '${literal}', expected: ')'`);
    return values;
  }

  private identifiers(): string[] {
    const values = new Set<string>();
    for (;;) {
      const { token, literal } = this.next();
      if (token === 'identifier') {
        values.add(literal);
        const after = this.peek();
        if (after.token === ',') continue;
        if (after.token === ')') return [...values];
        throw new Error(`found '${after.literal}', expected: ',' or ')'`);
      }
      if (token !== ',') throw new Error(`found '${literal}', expected: ',', or identifier`);
      if (values.size === 0) values.add('');
      const after = this.peek().token;
      if (after === ')') return [...values.add('')];
      if (after === ',') {
        this.next();
        values.add('');
      }
    }
  }

  private exactValue(): string[] {
    const { token } = this.peek();
    if (token === 'end' || token === ',') return [''];
    const value = this.next();
    if (value.token === 'identifier') return [value.literal];
    throw new Error(`found '${value.literal}', expected: identifier`);
  }
}

/** NewRequirement's checks: an integer for gt/lt, valid label values. */
function checked(key: string, operator: Operator, values: string[]): Requirement {
  const errors: string[] = [];
  if (operator === 'gt' || operator === 'lt') {
    values.forEach((value, index) => {
      if (!/^[+-]?\d+$/.test(value)) {
        errors.push(
          `values[${index}]: Invalid value: ${JSON.stringify(value)}: for 'Gt', 'Lt' operators, the value must be an integer`,
        );
      }
    });
  }
  values.forEach((value, index) => {
    const why = labelValueErrors(value);
    if (why.length > 0) errors.push(`values[${index}]: Invalid value: ${JSON.stringify(value)}: ${why.join('; ')}`);
  });
  if (errors.length > 0) throw new Error(errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`);
  return { key, operator, values };
}

function matches({ key, operator, values }: Requirement, labels: Labels): boolean {
  const value = labels?.[key];
  switch (operator) {
    case '=':
    case '==':
    case 'in':
      return value !== undefined && values.includes(value);
    case '!=':
    case 'notin':
      return value === undefined || !values.includes(value);
    case 'exists':
      return value !== undefined;
    case '!':
      return value === undefined;
    case 'gt':
    case 'lt': {
      const [number, bound] = [Number(value), Number(values[0])];
      return value !== undefined && !Number.isNaN(number) && (operator === 'gt' ? number > bound : number < bound);
    }
  }
}

/** A label selector (`a=b,c!=d,e in (f,g),h,!i`) as a predicate; 400 Bad Request when it does not parse. */
export function parseLabelSelector(selector: string | null | undefined): LabelMatcher {
  let requirements: Requirement[];
  try {
    const items = lex(selector ?? '');
    const error = items.find((item) => item.token === 'error');
    requirements = new Parser(error ? items.slice(0, items.indexOf(error) + 1) : items).parse();
  } catch (error) {
    throw badRequest((error as Error).message);
  }
  return (labels) => requirements.every((requirement) => matches(requirement, labels));
}
