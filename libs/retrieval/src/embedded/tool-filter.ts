import { compileToolGlob, RISK_ORDER } from '@toolgate/sdk';
import type { ToolDocument } from '../documents/tool-document';
import type { ToolSearchFilter } from '../index/tool-index.port';

export function compileFilter(filter: ToolSearchFilter): (doc: ToolDocument) => boolean {
  const clauses = filter.scope.map((c) => ({ matches: compileToolGlob(c.idGlob), maxRank: RISK_ORDER.indexOf(c.maxRisk) }));
  const categories = filter.categories && filter.categories.length > 0 ? new Set(filter.categories) : null;
  return (doc) => {
    if (categories && !doc.category.some((c) => categories.has(c))) return false;
    const rank = RISK_ORDER.indexOf(doc.risk);
    return clauses.some((c) => rank <= c.maxRank && c.matches(doc.id));
  };
}

/** Compiled filters, cached: a principal's scope repeats across its queries. */
export class FilterCache {
  private readonly compiled = new Map<string, (doc: ToolDocument) => boolean>();

  get(filter: ToolSearchFilter): (doc: ToolDocument) => boolean {
    const key = JSON.stringify(filter);
    let predicate = this.compiled.get(key);
    if (!predicate) {
      if (this.compiled.size >= 256) this.compiled.clear();
      predicate = compileFilter(filter);
      this.compiled.set(key, predicate);
    }
    return predicate;
  }
}
