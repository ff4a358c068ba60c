import { Module } from '@nestjs/common';
import { createToolIndex } from './index/tool-index.factory';
import { ToolIndex } from './index/tool-index.port';
import { RETRIEVAL_OPTIONS, RetrievalConfigurableModule, type RetrievalModuleOptions } from './retrieval.module-definition';

/** Provides the ToolIndex port with the driver named in the options. */
@Module({
  providers: [
    {
      provide: ToolIndex,
      inject: [RETRIEVAL_OPTIONS],
      useFactory: (options: RetrievalModuleOptions): ToolIndex => createToolIndex(options),
    },
  ],
  exports: [ToolIndex, RETRIEVAL_OPTIONS],
})
export class RetrievalModule extends RetrievalConfigurableModule {}
