import { type DynamicModule, Module } from '@nestjs/common';
import { RegistryModule } from '@toolgate/registry';
import { loggingModule } from '../logging/logging.module';
import { ToolWorkerService, WORKER_CONFIG } from './tool-worker.service';
import type { WorkerConfig } from './worker.config';

/** A tool worker's process: the registry (plugins loaded into an in-memory catalog) and the service that serves them over NATS. */
@Module({})
export class ToolWorkerModule {
  static forRoot(config: WorkerConfig): DynamicModule {
    return {
      module: ToolWorkerModule,
      imports: [loggingModule(config.logLevel), RegistryModule.forRoot(config.registry)],
      providers: [{ provide: WORKER_CONFIG, useValue: config }, ToolWorkerService],
    };
  }
}
