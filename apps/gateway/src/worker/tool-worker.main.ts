import 'reflect-metadata';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { BOOT_OPTIONS } from '../boot.options';
import { ToolWorkerModule } from './tool-worker.module';
import type { WorkerConfig } from './worker.config';

/** Boots a tool worker: loads its plugins, connects to NATS (waiting for it if it is not up yet), announces and serves. */
export async function startToolWorker(config: WorkerConfig): Promise<{ app: INestApplicationContext; close(): Promise<void> }> {
  const app = await NestFactory.createApplicationContext(ToolWorkerModule.forRoot(config), BOOT_OPTIONS);
  app.useLogger(app.get(Logger));
  app.flushLogs();
  await app.init();
  return { app, close: () => app.close() };
}
