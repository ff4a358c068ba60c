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
  find(text: string, limit: number, principal: Principal): Promise<FoundTool[]> {
    return tracer.startActiveSpan('toolgate.retrieve', async (span) => {
      try {
        span.setAttributes({ 'toolgate.k': limit, 'toolgate.index.driver': this.retriever.index.driver, 'toolgate.embedder': this.retriever.model });
        const found = await this.ranked(text, limit, principal);
        span.setAttribute('toolgate.hits', found.length);
        return found;
      } catch (error) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
        throw error;
      } finally {
        span.end();
      }
    });
  }

  private async ranked(text: string, limit: number, principal: Principal): Promise<FoundTool[]> {
    // Unhealthy versions are never offered: ask for as many more as there are, then drop them.
    const unhealthy = this.health.snapshot().filter((verdict) => !verdict.healthy).length;
    // The caller's tenant: what its own runs taught counts, no other tenant's learning is read.
    // A warming index answers from what it has and says so, or waits (bounded): never an empty list that only means "not ready".
    const { hits } = await this.retriever.searchWhenWarm(text, limit + unhealthy, { scope: this.access.discoveryScope(principal), tenant: principal.tenant }, this.options.warmup);
    const found: FoundTool[] = [];
    for (const hit of hits) {
      if (found.length >= limit) break;
      const match = this.match(hit.id, principal, found);
      if (match) found.push({ ...match, hit });
    }
    return found;
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
    try {
      const { tool, version } = this.catalog.resolve(ref, principal);
      if (taken.some((t) => t.tool.id === tool.id) || !this.health.isHealthy(tool.id, version.version)) return null;
      return { tool, version };
    } catch (error) {
      // A hit the catalog no longer shows (drift), or a named tool the caller may not see: not a candidate.
      if (error instanceof ToolgateError) return null;
      throw error;
    }
  }
}
