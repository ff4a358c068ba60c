import { Inject, Injectable } from '@nestjs/common';
import { SpanStatusCode, trace } from '@opentelemetry/api';
import { HealthMonitor } from '@toolgate/executor';
import { AccessPolicyService, CatalogService, type Principal, type ToolVersionView, type ToolView } from '@toolgate/registry';
import { RETRIEVAL_OPTIONS, type RetrievalModuleOptions, type RetrievedTool, ToolRetriever } from '@toolgate/retrieval';
import { ToolgateError } from '@toolgate/sdk';

const tracer = trace.getTracer('toolgate.gateway');

/** A tool the caller may discover, at the version it would get, whose version is healthy. */
export interface CatalogMatch {
  tool: ToolView;
  version: ToolVersionView;
}

export interface FoundTool extends CatalogMatch {
  hit: RetrievedTool;
}

/** Why the funnel kept a candidate or dropped it after ranking. */
export type CandidateVerdict = 'KEPT' | 'BELOW_CUTOFF' | 'UNHEALTHY' | 'DUPLICATE';

export interface ConsideredTool extends FoundTool {
  verdict: CandidateVerdict;
  reason: string;
}

/**
 * The retrieval funnel joined to the catalog: hits within the caller's discovery scope (ranked by the
 * platform-wide text plus what the caller's own tenant taught, never another tenant's), resolved by
 * the catalog (the authority when the index drifts), healthy versions only, one entry per tool; while
 * the index warms up, as its `WarmupPolicy` says.
 */
@Injectable()
export class CandidateFinder {
  constructor(
    private readonly retriever: ToolRetriever,
    private readonly catalog: CatalogService,
    private readonly access: AccessPolicyService,
    private readonly health: HealthMonitor,
    @Inject(RETRIEVAL_OPTIONS) private readonly options: RetrievalModuleOptions,
  ) {}

  /** The best `limit` tools for the text, best first: the `toolgate.retrieve` span of a search and of planning alike. */
  async find(text: string, limit: number, principal: Principal): Promise<FoundTool[]> {
    const considered = await this.consider(text, limit, 0, principal);
    return considered.filter((c) => c.verdict === 'KEPT');
  }

  /**
   * The funnel's candidates around the cut: the `limit` kept and up to `beyond` more, each with the
   * verdict that kept or dropped it. A hit the catalog does not give the caller (drift, a version
   * disabled for its tenant) is left out, as from every other answer.
   */
  consider(text: string, limit: number, beyond: number, principal: Principal): Promise<ConsideredTool[]> {
    return tracer.startActiveSpan('toolgate.retrieve', async (span) => {
      try {
        span.setAttributes({ 'toolgate.k': limit, 'toolgate.index.driver': this.retriever.index.driver, 'toolgate.embedder': this.retriever.model });
        const considered = await this.ranked(text, limit, beyond, principal);
        span.setAttribute('toolgate.hits', considered.filter((c) => c.verdict === 'KEPT').length);
        return considered;
      } catch (error) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
        throw error;
      } finally {
        span.end();
      }
    });
  }

  private async ranked(text: string, limit: number, beyond: number, principal: Principal): Promise<ConsideredTool[]> {
    // Unhealthy versions are never offered: ask for as many more as there are, then drop them.
    const unhealthy = new Map(
      this.health
        .snapshot()
        .filter((verdict) => !verdict.healthy)
        .map((verdict) => [`${verdict.toolId}@${verdict.version}`, verdict.detail]),
    );
    // The caller's tenant: what its own runs taught counts, no other tenant's learning is read.
    // A warming index answers from what it has and says so, or waits (bounded): never an empty list that only means "not ready".
    const { hits } = await this.retriever.searchWhenWarm(text, limit + beyond + unhealthy.size, { scope: this.access.discoveryScope(principal), tenant: principal.tenant }, this.options.warmup);
    const considered: ConsideredTool[] = [];
    let kept = 0;
    let past = 0;
    for (const hit of hits) {
      if (kept >= limit && past >= beyond) break;
      const match = this.resolve(hit.id, principal);
      if (!match) continue;
      const ref = `${match.tool.id}@${match.version.version}`;
      if (considered.some((c) => (c.verdict === 'KEPT' || c.verdict === 'BELOW_CUTOFF') && c.tool.id === match.tool.id)) {
        considered.push({ ...match, hit, verdict: 'DUPLICATE', reason: 'this tool ranked higher already' });
      } else if (unhealthy.has(ref)) {
        considered.push({ ...match, hit, verdict: 'UNHEALTHY', reason: `${ref} failed its health check${unhealthy.get(ref) ? `: ${unhealthy.get(ref)}` : ''}` });
      } else if (kept >= limit) {
        past += 1;
        considered.push({ ...match, hit, verdict: 'BELOW_CUTOFF', reason: `ranked #${hit.rank}, below the top ${limit}` });
      } else {
        kept += 1;
        considered.push({ ...match, hit, verdict: 'KEPT', reason: `among the top ${limit}` });
      }
    }
    return considered;
  }

  /**
   * Tools the caller named (in toolChoice, or called in the previous turn) that are not among `taken`,
   * when it may still discover them and they are healthy; never otherwise.
   */
  named(refs: readonly string[], principal: Principal, taken: readonly CatalogMatch[]): CatalogMatch[] {
    const added: CatalogMatch[] = [];
    for (const ref of refs) {
      const match = this.match(ref, principal, [...taken, ...added]);
      if (match) added.push(match);
    }
    return added;
  }

  private match(ref: string, principal: Principal, taken: readonly CatalogMatch[]): CatalogMatch | null {
    const match = this.resolve(ref, principal);
    if (!match || taken.some((t) => t.tool.id === match.tool.id) || !this.health.isHealthy(match.tool.id, match.version.version)) return null;
    return match;
  }

  private resolve(ref: string, principal: Principal): CatalogMatch | null {
    try {
      return this.catalog.resolve(ref, principal);
    } catch (error) {
      // A hit the catalog no longer shows (drift), or a named tool the caller may not see: not a candidate.
      if (error instanceof ToolgateError) return null;
      throw error;
    }
  }
}
