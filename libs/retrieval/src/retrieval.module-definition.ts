import { ConfigurableModuleBuilder } from '@nestjs/common';

export interface RetrievalModuleOptions {
  /** `embedded`: in-process index, the zero-config default. */
  driver: 'embedded';
  /** Search results returned when the caller does not say. */
  defaultK: number;
  /** Upper bound on k a caller may ask for. */
  maxK: number;
}

export const { ConfigurableModuleClass: RetrievalConfigurableModule, MODULE_OPTIONS_TOKEN: RETRIEVAL_OPTIONS } = new ConfigurableModuleBuilder<RetrievalModuleOptions>()
  .setClassMethodName('forRoot')
  .setExtras({ isGlobal: true }, (definition, extras) => ({ ...definition, global: extras.isGlobal }))
  .build();
