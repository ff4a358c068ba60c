import { ConfigurableModuleBuilder, type ModuleMetadata } from '@nestjs/common';
import type { ExecutorModuleOptions } from './executor.config';
import type { ExecutionRoute } from './routing/execution-route.types';
import { EXECUTION_ROUTES } from './routing/execution-routes.list';

export interface ExecutorModuleExtras {
  isGlobal?: boolean;
  /** The registry module (catalog, access policies, database), unless it is global. */
  imports?: ModuleMetadata['imports'];
  /** The execution kinds this server runs; default EXECUTION_ROUTES. Tests wrap a route (e.g. fault injection) here. */
  routes?: readonly ExecutionRoute[];
}

export const EXECUTION_ROUTE_LIST = Symbol('EXECUTION_ROUTE_LIST');

export const {
  ConfigurableModuleClass: ExecutorConfigurableModule,
  MODULE_OPTIONS_TOKEN: EXECUTOR_OPTIONS,
  OPTIONS_TYPE: EXECUTOR_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<Partial<ExecutorModuleOptions>>()
  .setClassMethodName('forRoot')
  .setExtras<ExecutorModuleExtras>({ isGlobal: false }, (definition, extras) => ({
    ...definition,
    global: extras.isGlobal,
    imports: [...(definition.imports ?? []), ...(extras.imports ?? [])],
    providers: [...(definition.providers ?? []), { provide: EXECUTION_ROUTE_LIST, useValue: extras.routes ?? EXECUTION_ROUTES }],
  }))
  .build();
