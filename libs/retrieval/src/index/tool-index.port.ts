import type { Risk } from '@toolgate/sdk';
import type { ToolDocument } from '../documents/tool-document';

/** A principal's discover grants: a document matches when any clause's glob matches its id and its risk is allowed. */
export interface ToolSearchFilter {
  scope: { idGlob: string; maxRisk: Risk }[];
  categories?: string[];
}

export interface ToolSearchQuery {
  text: string;
  k: number;
  filter: ToolSearchFilter;
}

export interface ToolHit {
  id: string;
  version: string;
  score: number;
  explanation: {
    stage: 'bm25';
    rank: number;
    bm25: number;
    matchedTerms: string[];
  };
}

/** Port: where tool documents are indexed and searched. Drivers are chosen by RetrievalModule.forRoot. */
export abstract class ToolIndex {
  abstract readonly driver: string;
  /** Insert or replace documents by id. */
  abstract upsert(docs: ToolDocument[]): Promise<void>;
  abstract remove(ids: string[]): Promise<void>;
  /** Ids currently indexed. */
  abstract ids(): Promise<string[]>;
  /** Best first; never returns a document the filter excludes. */
  abstract search(query: ToolSearchQuery): Promise<ToolHit[]>;
  /** Throws when the index cannot serve searches. */
  abstract ping(): Promise<void>;
}
