/** `fn` over `items`, at most `limit` at a time; results in the order of `items`. */
export async function mapConcurrently<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** `fn` once per region of `items`, with that region's items, every region at once. */
export function perRegion<T extends { region: string }, R>(
  items: readonly T[],
  fn: (region: string, items: T[]) => Promise<R>,
): Promise<R[]> {
  const regions = [...new Set(items.map(({ region }) => region))];
  return Promise.all(
    regions.map((region) =>
      fn(
        region,
        items.filter((item) => item.region === region),
      ),
    ),
  );
}
