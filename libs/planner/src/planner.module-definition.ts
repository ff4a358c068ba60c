import { ConfigurableModuleBuilder, type ModuleMetadata } from '@nestjs/common';
import type { PlannerModuleOptions } from './planner.config';

export const { ConfigurableModuleClass: PlannerConfigurableModule, MODULE_OPTIONS_TOKEN: PLANNER_OPTIONS } = new ConfigurableModuleBuilder<PlannerModuleOptions>()
  .setClassMethodName('forRoot')
  .setExtras<{ isGlobal?: boolean; imports?: ModuleMetadata['imports'] }>({ isGlobal: false, imports: [] }, (definition, extras) => ({
    ...definition,
    global: extras.isGlobal,
    // The retrieval module, whose embedder the deterministic planner shares.
    imports: [...(definition.imports ?? []), ...(extras.imports ?? [])],
  }))
  .build();
