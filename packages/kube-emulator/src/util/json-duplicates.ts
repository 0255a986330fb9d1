/**
 * The fields a JSON text names twice in one object, as kube-apiserver's strict decoder
 * (sigs.k8s.io/json) names them: the path of object keys from the top, joined by dots (arrays
 * add nothing), in document order. The text must be valid JSON (checked before).
 */
export function duplicateFields(json: string): string[] {
  const found: string[] = [];
  let at = 0;
  const skipSpace = (): void => {
    while (at < json.length && ' \t\n\r'.includes(json[at]!)) at++;
  };
  const readString = (): string => {
    const start = at;
    at++;
    while (json[at] !== '"') at += json[at] === '\\' ? 2 : 1;
    at++;
    return JSON.parse(json.slice(start, at)) as string;
  };
  const readValue = (path: string[]): void => {
    skipSpace();
    const c = json[at];
    if (c === '{') {
      at++;
      const seen = new Set<string>();
      skipSpace();
      while (json[at] !== '}') {
        skipSpace();
        const key = readString();
        if (seen.has(key)) found.push([...path, key].join('.'));
        seen.add(key);
        skipSpace();
        at++; // the colon
        readValue([...path, key]);
        skipSpace();
        if (json[at] === ',') at++;
        skipSpace();
      }
      at++;
    } else if (c === '[') {
      at++;
      skipSpace();
      while (json[at] !== ']') {
        readValue(path);
        skipSpace();
        if (json[at] === ',') at++;
        skipSpace();
      }
      at++;
    } else if (c === '"') readString();
    else while (at < json.length && !',}] \t\n\r'.includes(json[at]!)) at++;
  };
  readValue([]);
  return found;
}
