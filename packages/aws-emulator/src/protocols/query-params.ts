/** Decodes `application/x-www-form-urlencoded` text (a query string or a query-protocol body). */
export function parseForm(text: string): [string, string][] {
  const pairs: [string, string][] = [];
  if (text === '') return pairs;
  for (const part of text.split('&')) {
    if (part === '') continue;
    const equals = part.indexOf('=');
    const key = equals < 0 ? part : part.slice(0, equals);
    const value = equals < 0 ? '' : part.slice(equals + 1);
    pairs.push([decode(key), decode(value)]);
  }
  return pairs;
}

/** Percent-decodes; a malformed escape stays as it came (its signature then fails to verify). */
function decode(text: string): string {
  const spaced = text.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

/**
 * The parameters of a query-protocol call. Lists arrive flattened: `Tags.member.1.Key` (STS) or
 * `Tag.1.Key` (EC2); `list` and `structs` put them back together in index order.
 */
export class QueryParams {
  constructor(private readonly map: ReadonlyMap<string, string>) {}

  get(name: string): string | undefined {
    return this.map.get(name);
  }

  /** The values of `prefix.N`; undefined when the list is absent, empty when it was sent empty (`prefix=`). */
  list(prefix: string): string[] | undefined {
    const items = this.#indexed(prefix);
    return items === undefined ? undefined : items.map((item) => item.get('') ?? '');
  }

  /** The structures of `prefix.N.Field`, each as a map of its fields (nested lists keep their `Field.M` names). */
  structs(prefix: string): ReadonlyMap<string, string>[] | undefined {
    return this.#indexed(prefix);
  }

  #indexed(prefix: string): Map<string, string>[] | undefined {
    const byIndex = new Map<number, Map<string, string>>();
    const start = `${prefix}.`;
    for (const [key, value] of this.map) {
      if (!key.startsWith(start)) continue;
      const match = /^(\d+)(?:\.(.+))?$/.exec(key.slice(start.length));
      if (match === null) continue;
      const index = Number(match[1]);
      let fields = byIndex.get(index);
      if (fields === undefined) byIndex.set(index, (fields = new Map<string, string>()));
      fields.set(match[2] ?? '', value);
    }
    if (byIndex.size === 0) return this.map.has(prefix) ? [] : undefined;
    return [...byIndex.entries()].sort(([a], [b]) => a - b).map(([, fields]) => fields);
  }
}
