import { Inject, Injectable } from '@nestjs/common';
import { trace } from '@opentelemetry/api';
import { HealthMonitor } from '@toolgate/executor';
import { ImageDescriber, type ImageDescription } from '@toolgate/planner';
import { AccessPolicyService, CatalogService, type Principal, type ToolView } from '@toolgate/registry';
import { RETRIEVAL_OPTIONS, type RetrievalModuleOptions, type RetrievedTool, ToolRetriever } from '@toolgate/retrieval';
import { ErrorCode, ToolgateError } from '@toolgate/sdk';

export interface SearchToolsCommand {
  query: string;
  k?: number;
  images?: { mimeType: string; dataBase64: string; name?: string }[];
}

export interface ToolSearchResult {
  tool: ToolView;
  hit: RetrievedTool;
  /** What each image of the query contributed (its text was appended to the query), in order. */
  images: ImageDescription[];
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
    private readonly describer: ImageDescriber,
    private readonly health: HealthMonitor,
  ) {}

  async execute(command: SearchToolsCommand, principal: Principal): Promise<ToolSearchResult[]> {
    const k = command.k ?? this.options.defaultK;
    if (k > this.options.maxK) {
      throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `k=${k} is over the maximum of ${this.options.maxK}`, [{ path: '/k', message: `must be at most ${this.options.maxK}` }]);
    }
    const imageInputs = command.images ?? [];
    if (command.query.trim() === '' && imageInputs.length === 0) {
      throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, 'query must not be empty without images', [{ path: '/query', message: 'must not be empty without images' }]);
    }
    // Images become query text (OCR or a vision model) before retrieval; each is named in errors by its index.
    const images = imageInputs.length > 0 ? await this.describe(imageInputs) : [];
    const query = [command.query.trim(), ...images.map((image) => image.text.trim())].filter(Boolean).join('\n');
    if (query === '') {
      throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, 'no text was found in the images and the query is empty', [{ path: '/images', message: 'no text found' }]);
    }
    return tracer.startActiveSpan('toolgate.retrieve', async (span) => {
      try {
        span.setAttributes({ 'toolgate.k': k, 'toolgate.index.driver': this.retriever.index.driver, 'toolgate.embedder': this.retriever.model, 'toolgate.images': images.length });
        // Unhealthy versions are not offered: ask for as many more as there are, then drop them.
        const unhealthy = this.health.snapshot().filter((verdict) => !verdict.healthy).length;
        const { hits } = await this.retriever.search(query, k + unhealthy, { scope: this.access.discoveryScope(principal) });
        // The index filter already applied the grants; the catalog check is the authority if they drift.
        const results = hits
          .filter((hit) => this.health.isHealthy(hit.id, hit.version))
          .slice(0, k)
          .flatMap((hit) => {
            try {
              return [{ tool: this.catalog.resolve(hit.id, principal).tool, hit, images }];
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

  private describe(images: NonNullable<SearchToolsCommand['images']>): Promise<ImageDescription[]> {
    return tracer.startActiveSpan('toolgate.understand', async (span) => {
      try {
        span.setAttributes({ 'toolgate.images': images.length, 'toolgate.image_describer': this.describer.kind });
        return await this.describer.describe(images.map((image) => ({ mimeType: image.mimeType, data: image.dataBase64, ...(image.name ? { name: image.name } : {}) })));
      } finally {
        span.end();
      }
    });
  }
}
