import { Inject, Injectable } from '@nestjs/common';
import type { ImageDescription } from '@toolgate/planner';
import type { Principal, ToolView } from '@toolgate/registry';
import { RETRIEVAL_OPTIONS, type RetrievalModuleOptions, type RetrievedTool } from '@toolgate/retrieval';
import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import { CandidateFinder } from './candidate-finder.service';
import { TaskUnderstanding } from './task-understanding.service';

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

/** A search's checked k and its text: the query's words and what its images contributed. */
export async function understoodQuery(
  command: SearchToolsCommand,
  understanding: TaskUnderstanding,
  options: Pick<RetrievalModuleOptions, 'defaultK' | 'maxK'>,
): Promise<{ query: string; k: number; images: ImageDescription[] }> {
  const k = command.k ?? options.defaultK;
  if (k > options.maxK) {
    throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `k=${k} is over the maximum of ${options.maxK}`, [{ path: '/k', message: `must be at most ${options.maxK}` }]);
  }
  const imageInputs = command.images ?? [];
  if (command.query.trim() === '' && imageInputs.length === 0) {
    throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, 'query must not be empty without images', [{ path: '/query', message: 'must not be empty without images' }]);
  }
  const understood = await understanding.understand(
    command.query.trim(),
    imageInputs.map((image) => ({ mimeType: image.mimeType, data: image.dataBase64, ...(image.name ? { name: image.name } : {}) })),
  );
  // A query is only its words: an image-only one does not start with an empty line.
  const query = understood.text.trim();
  if (query === '') {
    throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, 'no text was found in the images and the query is empty', [{ path: '/images', message: 'no text found' }]);
  }
  return { query, k, images: understood.images };
}

/** Searches the index within what the principal may discover, and joins hits back to the catalog. */
@Injectable()
export class SearchToolsUseCase {
  constructor(
    private readonly finder: CandidateFinder,
    private readonly understanding: TaskUnderstanding,
    @Inject(RETRIEVAL_OPTIONS) private readonly options: RetrievalModuleOptions,
  ) {}

  async execute(command: SearchToolsCommand, principal: Principal): Promise<ToolSearchResult[]> {
    const { query, k, images } = await understoodQuery(command, this.understanding, this.options);
    return (await this.finder.find(query, k, principal)).map(({ tool, hit }) => ({ tool, hit, images }));
  }
}
