/**
 * Interleaves ranked lists by rank (every list's first, then every list's second, ...), each id
 * once: every intent of a multi-part request gets a slot near the top instead of the most
 * talkative one taking all of them.
 */
export function interleaveByRank<T extends { id: string }>(lists: readonly (readonly T[])[]): T[] {
  const seen = new Set<string>();
  const merged: T[] = [];
  const depth = Math.max(0, ...lists.map((list) => list.length));
  for (let rank = 0; rank < depth; rank++) {
    for (const list of lists) {
      const item = list[rank];
      if (item === undefined || seen.has(item.id)) continue;
      seen.add(item.id);
      merged.push(item);
    }
  }
  return merged;
}
