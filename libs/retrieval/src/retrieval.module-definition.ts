import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { FunnelOptions } from './funnel/tool-retriever';

export interface RetrievalModuleOptions {
  /** `embedded`: in-process index, the zero-config default. */
  driver: 'embedded';
  /** `none`: lexical retrieval only; `hashing`: deterministic lexical vectors, no model needed. */
  embedder: 'none' | 'hashing';
  funnel: FunnelOptions;
  /** Search results returned when the caller does not say. */
  defaultK: number;
  /** Upper bound on k a caller may ask for. */
  maxK: number;
}

export const { ConfigurableModuleClass: RetrievalConfigurableModule, MODULE_OPTIONS_TOKEN: RETRIEVAL_OPTIONS } = new ConfigurableModuleBuilder<RetrievalModuleOptions>()
  .setClassMethodName('forRoot')
  .setExtras({ isGlobal: true }, (definition, extras) => ({ ...definition, global: extras.isGlobal }))
  .build();
