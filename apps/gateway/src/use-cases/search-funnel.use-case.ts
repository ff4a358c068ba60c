import { Inject, Injectable } from '@nestjs/common';
import type { ImageDescription } from '@toolgate/planner';
import type { Principal } from '@toolgate/registry';
import { RETRIEVAL_OPTIONS, type RetrievalModuleOptions } from '@toolgate/retrieval';
import { funnelBeyond } from '../graphql/operation.costs';
import { CandidateFinder, type ConsideredTool } from './candidate-finder.service';
import { type SearchToolsCommand, understoodQuery } from './search-tools.use-case';
import { TaskUnderstanding } from './task-understanding.service';

export interface SearchFunnelReport {
  /** The text searched: the query with what its images contributed. */
  query: string;
  k: number;
  images: ImageDescription[];
  candidates: ConsideredTool[];
}

/**
 * A search as the playground shows it: the same funnel and the same checks as `searchTools`, with the
 * candidates just past the cut and why each was kept or dropped.
 */
@Injectable()
export class SearchFunnelUseCase {
  constructor(
    private readonly finder: CandidateFinder,
    private readonly understanding: TaskUnderstanding,
    @Inject(RETRIEVAL_OPTIONS) private readonly options: RetrievalModuleOptions,
  ) {}

  async execute(command: SearchToolsCommand, principal: Principal): Promise<SearchFunnelReport> {
    const { query, k, images } = await understoodQuery(command, this.understanding, this.options);
    const candidates = await this.finder.consider(query, k, funnelBeyond(k), principal);
    return { query, k, images, candidates };
  }
}
