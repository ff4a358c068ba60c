/**
 * `work` over every item, at most `limit` at once, results in the items' order: sources start a
 * process (a plugin import, a stdio MCP server) per item, and a large folder or config must not
 * start them all at once.
 */
export async function mapAtMost<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < items.length; i = next++) results[i] = await work(items[i]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}
