import { Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { ToolRetriever } from './funnel/tool.retriever';
import { createEmbedder, createReranker, createToolIndex } from './index/tool-index.factory';
import { ToolIndex } from './index/tool-index.port';
import { RETRIEVAL_OPTIONS, RetrievalConfigurableModule, type RetrievalModuleOptions } from './retrieval.module-definition';

/** Provides the ToolIndex port with the driver named in the options, and the funnel over it with the configured embedder and reranker. */
@Module({
  providers: [
    { provide: ToolIndex, inject: [RETRIEVAL_OPTIONS], useFactory: (options: RetrievalModuleOptions) => createToolIndex(options) },
    {
      provide: ToolRetriever,
      inject: [ToolIndex, RETRIEVAL_OPTIONS],
      useFactory: async (index: ToolIndex, options: RetrievalModuleOptions) => new ToolRetriever(index, await createEmbedder(options), options.funnel, createReranker(options)),
    },
  ],
  exports: [ToolIndex, ToolRetriever, RETRIEVAL_OPTIONS],
})
export class RetrievalModule extends RetrievalConfigurableModule implements OnApplicationShutdown {
  constructor(
    @Inject(ToolIndex) private readonly index: ToolIndex,
    @Inject(ToolRetriever) private readonly retriever: ToolRetriever,
  ) {
    super();
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.index.close(), this.retriever.embedder?.close()]);
  }
}
