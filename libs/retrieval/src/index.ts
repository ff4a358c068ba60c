export { tokenize } from './documents/tokenizer';
export { buildToolDocument, type ToolDocument } from './documents/tool-document';
export { Bm25ToolIndex } from './embedded/bm25-tool-index';
export { type ToolHit, ToolIndex, type ToolSearchFilter, type ToolSearchQuery } from './index/tool-index.port';
export { type RetrievalEnv, retrievalEnvSchema, retrievalOptionsFromEnv } from './retrieval.config';
export { RetrievalModule } from './retrieval.module';
export { RETRIEVAL_OPTIONS, type RetrievalModuleOptions } from './retrieval.module-definition';
