import { compileToolGlob, RISK_ORDER } from '@toolgate/sdk';
import type { ToolDocument } from '../documents/tool.document';
import type { ToolSearchFilter } from '../index/tool-index.port';

/** The filter as a predicate over documents (what the index applies inside each side's search). */
export function documentFilter(filter: ToolSearchFilter): (doc: ToolDocument) => boolean {
  const clauses = filter.scope.map((c) => ({ matches: compileToolGlob(c.idGlob), maxRank: RISK_ORDER.indexOf(c.maxRisk) }));
  const categories = filter.categories && filter.categories.length > 0 ? new Set(filter.categories) : null;
  return (doc) => {
    if (categories && !doc.category.some((c) => categories.has(c))) return false;
    const rank = RISK_ORDER.indexOf(doc.risk);
    return clauses.some((c) => rank <= c.maxRank && c.matches(doc.id));
  };
}

interface Evaluated {
  matches: (doc: ToolDocument) => boolean;
  /** 1 where the slot's document is live and passes the filter. */
  bits: Uint8Array;
  /** Slots below this are evaluated. */
  upTo: number;
}

/**
 * Filters evaluated once per slot and kept as bitsets, per distinct filter (a principal's scope
 * repeats across its queries): a query reads one byte per document instead of matching globs.
 * Slots only ever get appended, so a bitset is extended to new slots, and a dying slot is cleared
 * in every bitset; the index clears the cache when it renumbers slots.
 */
export class FilterBitsets {
  private readonly byFilter = new Map<string, Evaluated>();

  constructor(private readonly maxFilters = 64) {}

  /** The filter's bitset over `docs` (by slot; null = removed). */
  get(filter: ToolSearchFilter, docs: readonly (ToolDocument | null)[]): Uint8Array {
    const key = JSON.stringify(filter);
    let entry = this.byFilter.get(key);
    if (!entry) {
      if (this.byFilter.size >= this.maxFilters) this.byFilter.clear();
      entry = { matches: documentFilter(filter), bits: new Uint8Array(docs.length), upTo: 0 };
      this.byFilter.set(key, entry);
    }
    if (entry.upTo < docs.length) {
      if (entry.bits.length < docs.length) {
        const bits = new Uint8Array(Math.max(docs.length, entry.bits.length * 2));
        bits.set(entry.bits);
        entry.bits = bits;
      }
      for (let slot = entry.upTo; slot < docs.length; slot++) {
        const doc = docs[slot];
        entry.bits[slot] = doc !== null && entry.matches(doc) ? 1 : 0;
      }
      entry.upTo = docs.length;
    }
    return entry.bits;
  }

  /** The slot's document is gone: no filter lets it through. */
  kill(slot: number): void {
    for (const entry of this.byFilter.values()) if (slot < entry.upTo) entry.bits[slot] = 0;
  }

  clear(): void {
    this.byFilter.clear();
  }
}
