import { type DynamicModule, Global, Module, type Provider } from '@nestjs/common';
import { HealthGatedToolInvoker, HealthMonitor, InProcessHealthProbe, InProcessToolInvoker, IsolatedToolInvoker, ResilientToolInvoker, ToolHealthProbe, ToolInvoker } from '@toolgate/executor';
import { CatalogService } from '@toolgate/registry';
import type { AppConfig } from '../config/app.config';

/**
 * Where and how tool code runs: the resilient invoker (timeout, bounded retries, breaker, bulkhead per
 * tool@version) over plugin workers that can be terminated (TOOLGATE_TOOL_ISOLATION=worker, the
 * default) or over in-process calls (`none`). The health monitor probes through the same layer.
 * Each is its own provider so Nest shuts each down (workers terminated, calls drained); the
 * executor's ToolInvoker is the resilient one behind a health gate (an unhealthy version is not
 * called, so the runner uses its fallback).
 */
@Global()
@Module({})
export class ToolExecutionModule {
  static forRoot(settings: AppConfig['resilience']): DynamicModule {
    const isolated = settings.isolation === 'worker';
    const inner: Provider = isolated
      ? { provide: IsolatedToolInvoker, inject: [CatalogService], useFactory: (catalog: CatalogService) => new IsolatedToolInvoker(catalog, settings.worker) }
      : { provide: InProcessToolInvoker, inject: [CatalogService], useFactory: (catalog: CatalogService) => new InProcessToolInvoker(catalog) };
    const probe: Provider = isolated
      ? { provide: ToolHealthProbe, useExisting: IsolatedToolInvoker }
      : { provide: ToolHealthProbe, inject: [CatalogService], useFactory: (catalog: CatalogService) => new InProcessHealthProbe(catalog) };
    return {
      module: ToolExecutionModule,
      providers: [
        inner,
        probe,
        {
          provide: ResilientToolInvoker,
          inject: [isolated ? IsolatedToolInvoker : InProcessToolInvoker, CatalogService],
          useFactory: (invoker: ToolInvoker, catalog: CatalogService) => new ResilientToolInvoker(invoker, catalog, settings.resilience),
        },
        {
          provide: HealthMonitor,
          inject: [CatalogService, ToolHealthProbe],
          useFactory: (catalog: CatalogService, healthProbe: ToolHealthProbe) => new HealthMonitor(catalog, healthProbe, settings.health),
        },
        {
          provide: HealthGatedToolInvoker,
          inject: [ResilientToolInvoker, HealthMonitor],
          useFactory: (resilient: ResilientToolInvoker, monitor: HealthMonitor) => new HealthGatedToolInvoker(resilient, monitor),
        },
      ],
      exports: [ResilientToolInvoker, HealthMonitor, HealthGatedToolInvoker],
    };
  }
}
