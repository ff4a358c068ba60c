import { ConfigurableModuleBuilder, type ModuleMetadata, type Provider } from '@nestjs/common';
import type { ExecutorModuleOptions } from './executor.config';
import { InProcessToolInvoker } from './runtime/in-process.tool-invoker';
import { ToolInvoker } from './runtime/tool-invoker.port';

const provides = (provider: Provider, token: unknown) => provider === token || (typeof provider === 'object' && 'provide' in provider && provider.provide === token);

export interface ExecutorModuleExtras {
  isGlobal?: boolean;
  /** Modules the ToolInvoker or RunRecorder providers below need. */
  imports?: ModuleMetadata['imports'];
  /** `ToolInvoker` and `RunRecorder` providers; without a ToolInvoker the in-process invoker is used. */
  providers?: Provider[];
}

export const {
  ConfigurableModuleClass: ExecutorConfigurableModule,
  MODULE_OPTIONS_TOKEN: EXECUTOR_OPTIONS,
  OPTIONS_TYPE: EXECUTOR_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<Partial<ExecutorModuleOptions>>()
  .setClassMethodName('forRoot')
  .setExtras<ExecutorModuleExtras>({ isGlobal: false, imports: [], providers: [] }, (definition, extras) => ({
    ...definition,
    global: extras.isGlobal,
    imports: [...(definition.imports ?? []), ...(extras.imports ?? [])],
    providers: [
      ...(definition.providers ?? []),
      ...(extras.providers ?? []),
      ...((extras.providers ?? []).some((p) => provides(p, ToolInvoker)) ? [] : [{ provide: ToolInvoker, useClass: InProcessToolInvoker }]),
    ],
    exports: [...(definition.exports ?? []), ToolInvoker],
  }))
  .build();
