import 'reflect-metadata';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import { Module, Logger as NestLogger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AccessPolicyService, type Principal } from '@toolgate/registry';
import { Logger } from 'nestjs-pino';
import { CoreModule } from '../app.module';
import { commandLinePrincipal } from '../auth/command-line.principal';
import { BOOT_OPTIONS } from '../boot.options';
import { fetchLocalModelIfMissing } from '../cli/local-model.fetch';
import type { AppConfig } from '../config/app.config';
import { startTracing } from '../tracing/tracing.bootstrap';
import { SyncToolIndexUseCase } from '../use-cases/sync-tool-index.use-case';
import { McpServerFactory } from './mcp-server.factory';
import { StdioLineGate } from './stdio-line.gate';

/**
 * `toolgate mcp serve`: the core without HTTP, serving MCP over stdin/stdout as the principal of the
 * key, both protocol eras (the SDK pins one per connection). Stdout carries JSON-RPC only: logs go to
 * stderr, and so does console output from anything loaded in this process. Resolves when the client
 * closes stdin (or on SIGTERM/SIGINT), after the app has shut down.
 */
export async function serveMcpStdio(config: AppConfig, key: string | undefined): Promise<void> {
  fetchLocalModelIfMissing(config.retrieval);
  Object.assign(console, { log: console.error, info: console.error, debug: console.error, dir: console.error });
  const tracing = startTracing(config.gateway);
  const level = (process.env.LOG_LEVEL ?? 'warn') as AppConfig['gateway']['LOG_LEVEL'];
  // A long-lived server (health checks, run maintenance), but one process per client: the index is synced once, below.
  @Module({
    imports: [CoreModule.forRoot({ ...config, gateway: { ...config.gateway, LOG_LEVEL: level } }, { logDestination: 2, indexSync: 'on-demand', longLived: true })],
    providers: [McpServerFactory],
  })
  class McpStdioModule {}
  const app = await NestFactory.createApplicationContext(McpStdioModule, BOOT_OPTIONS);
  app.useLogger(app.get(Logger));
  app.flushLogs();
  await app.init();
  const stop = async () => {
    await app.close();
    await tracing?.shutdown();
  };
  let principal: Principal;
  try {
    principal = commandLinePrincipal(app.get(AccessPolicyService), key ?? process.env.TOOLGATE_API_KEY);
    await app.get(SyncToolIndexUseCase).execute();
  } catch (error) {
    await stop();
    throw error;
  }
  const logger = new NestLogger('Mcp');
  const servers = app.get(McpServerFactory);
  // The gate answers what the transport would drop or close the connection over (a line over TOOLGATE_MAX_BODY_BYTES,
  // one not JSON-RPC); the transport's own bound then only has to hold one accepted line.
  const maxBytes = config.gateway.TOOLGATE_MAX_BODY_BYTES;
  const gate = new StdioLineGate(maxBytes, (refusal) => {
    logger.warn({ code: refusal.error.code, id: refusal.id }, `MCP stdio message refused: ${refusal.error.message}`);
    process.stdout.write(`${JSON.stringify(refusal)}\n`);
  });
  const transport = new StdioServerTransport(process.stdin.pipe(gate), process.stdout, { maxBufferSize: 2 * maxBytes + 2 });
  const handle = serveStdio(() => servers.create(principal), { transport, onerror: (error) => logger.warn({ err: error }, 'MCP stdio error') });
  logger.log({ tenant: principal.tenant, subject: principal.subject }, 'serving MCP over stdio');
  await new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  await handle.close();
  await stop();
}
