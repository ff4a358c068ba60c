import { Inject, Injectable } from '@nestjs/common';
import { trace } from '@opentelemetry/api';
import { AccessPolicyService, CatalogService, type Principal, type ToolView } from '@toolgate/registry';
import { RETRIEVAL_OPTIONS, type RetrievalModuleOptions, type RetrievedTool, ToolRetriever } from '@toolgate/retrieval';
import { ErrorCode, ToolgateError } from '@toolgate/sdk';

export interface SearchToolsCommand {
  query: string;
  k?: number;
  images?: { mimeType: string; dataBase64: string }[];
}

export interface ToolSearchResult {
  tool: ToolView;
  hit: RetrievedTool;
}

const tracer = trace.getTracer('toolgate.retrieval');

/** Searches the index within what the principal may discover, and joins hits back to the catalog. */
@Injectable()
export class SearchToolsUseCase {
  constructor(
    private readonly retriever: ToolRetriever,
    private readonly catalog: CatalogService,
    private readonly access: AccessPolicyService,
    @Inject(RETRIEVAL_OPTIONS) private readonly options: RetrievalModuleOptions,
  ) {}

  async execute(command: SearchToolsCommand, principal: Principal): Promise<ToolSearchResult[]> {
    const k = command.k ?? this.options.defaultK;
    if (k > this.options.maxK) {
      throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `k=${k} is over the maximum of ${this.options.maxK}`, [{ path: '/k', message: `must be at most ${this.options.maxK}` }]);
    }
    if (command.images && command.images.length > 0) {
      // Images become query text through an ImageDescriber, which this build does not have yet.
      throw new ToolgateError(ErrorCode.UNAVAILABLE, 'image queries need an image describer, and none is configured', [{ path: '/images', message: 'not supported by this server yet' }]);
    }
    return tracer.startActiveSpan('toolgate.retrieve', async (span) => {
      try {
        span.setAttributes({ 'toolgate.k': k, 'toolgate.index.driver': this.retriever.index.driver, 'toolgate.embedder': this.retriever.model });
        const { hits } = await this.retriever.search(command.query, k, { scope: this.access.discoveryScope(principal) });
        // The index filter already applied the grants; the catalog check is the authority if they drift.
        const results = hits.flatMap((hit) => {
          try {
            return [{ tool: this.catalog.resolve(hit.id, principal).tool, hit }];
          } catch {
            return [];
          }
        });
        span.setAttribute('toolgate.hits', results.length);
        return results;
      } finally {
        span.end();
      }
    });
  }
}
