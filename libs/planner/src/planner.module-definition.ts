import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { PlannerModuleOptions } from './planner.config';

export const { ConfigurableModuleClass: PlannerConfigurableModule, MODULE_OPTIONS_TOKEN: PLANNER_OPTIONS } = new ConfigurableModuleBuilder<PlannerModuleOptions>()
  .setClassMethodName('forRoot')
  .setExtras({ isGlobal: true }, (definition, extras) => ({ ...definition, global: extras.isGlobal }))
  .build();
