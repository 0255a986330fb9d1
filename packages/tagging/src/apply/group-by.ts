/** `items` grouped by the content each has (the same when `idOf` is), groups in order of first appearance. */
export function groupBy<T, C>(items: readonly T[], contentOf: (item: T) => C, idOf: (content: C) => string) {
  const groups = new Map<string, [C, T[]]>();
  for (const item of items) {
    const content = contentOf(item);
    const id = idOf(content);
    const group = groups.get(id) ?? [content, []];
    group[1].push(item);
    groups.set(id, group);
  }
  return [...groups.values()];
}
