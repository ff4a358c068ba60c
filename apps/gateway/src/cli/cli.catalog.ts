import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AccessPolicyService, CatalogService, type Principal, RegistryModule } from '@toolgate/registry';
import { Logger } from 'nestjs-pino';
import { commandLinePrincipal } from '../auth/command-line.principal';
import { BOOT_OPTIONS } from '../boot.options';
import type { CatalogConfig } from '../config/catalog.config';
import { loggingModule } from '../logging/logging.module';

/** The catalog as a command reads it, acting as its caller. */
export interface CliCatalog {
  catalog: CatalogService;
  principal: Principal;
  close(): Promise<void>;
}

/**
 * The registry alone (catalog, plugins, access policies): what `tools list`, `tools show` and
 * `plugins list` need. No index, model, planner or executor is built, so these commands start in a
 * fraction of the full core's time and memory. Logs go to stderr (at warn) as in the full core.
 */
export async function openCliCatalog(config: CatalogConfig, key: string | undefined): Promise<CliCatalog> {
  @Module({ imports: [loggingModule(process.env.LOG_LEVEL ?? 'warn', 2), RegistryModule.forRoot(config.registry)] })
  class CliCatalogModule {}
  const app = await NestFactory.createApplicationContext(CliCatalogModule, BOOT_OPTIONS);
  app.useLogger(app.get(Logger));
  app.flushLogs();
  return {
    catalog: app.get(CatalogService),
    principal: commandLinePrincipal(app.get(AccessPolicyService), key ?? process.env.TOOLGATE_API_KEY),
    close: () => app.close(),
  };
}
