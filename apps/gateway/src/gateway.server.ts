import 'reflect-metadata';
import { Logger as NestLogger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AccessPolicyService } from '@toolgate/registry';
import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import type { ErrorRequestHandler } from 'express';
import { Logger } from 'nestjs-pino';
import { AppModule } from './app.module';
import { BOOT_OPTIONS } from './boot.options';
import { type AppConfig, maskConfig } from './config/app.config';
import { mcpBodyErrors } from './mcp/mcp-http.errors';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/**
 * A body over the limit is 413 and one that is not JSON 400, each as a GraphQL-shaped JSON error
 * naming the problem (Express would answer with an HTML page).
 */
function bodyErrors(maxBytes: number): ErrorRequestHandler {
  return (error: { type?: string; length?: number }, _req, res, next) => {
    if (error.type === 'entity.too.large') {
      const message = `request body${error.length ? ` of ${error.length} bytes` : ''} is over the limit of ${maxBytes} bytes (TOOLGATE_MAX_BODY_BYTES)`;
      res.status(413).json({ errors: [{ message, extensions: { code: ErrorCode.INVALID_ARGUMENTS, maxBytes, details: [{ path: '', message }] } }] });
    } else if (error.type === 'entity.parse.failed') {
      res.status(400).json({ errors: [{ message: 'request body is not valid JSON', extensions: { code: ErrorCode.INVALID_ARGUMENTS } }] });
    } else {
      next(error);
    }
  };
}

/** Boots the HTTP server. Without API keys it serves only loopback, as the built-in local admin. */
export async function startServer(config: AppConfig, startedAt = performance.now()): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), BOOT_OPTIONS);
  app.useLogger(app.get(Logger));
  app.flushLogs();
  // Nothing to gain from telling a client which framework answers.
  app.disable('x-powered-by');
  const logger = new NestLogger('Bootstrap');
  // Before init, so it replaces Nest's 100 KB default json parser; GraphQL over WebSocket has the same limit per message.
  app.useBodyParser('json', { limit: config.gateway.TOOLGATE_MAX_BODY_BYTES });
  app.use('/mcp', mcpBodyErrors(config.gateway.TOOLGATE_MAX_BODY_BYTES));
  app.use(bodyErrors(config.gateway.TOOLGATE_MAX_BODY_BYTES));
  app.enableShutdownHooks();
  await app.init();

  const localMode = app.get(AccessPolicyService).localMode;
  const host = config.gateway.HOST ?? (localMode ? '127.0.0.1' : '0.0.0.0');
  if (localMode && !LOOPBACK.has(host)) {
    await app.close();
    throw new ToolgateError(ErrorCode.INVALID_CONFIG, `refusing to listen on ${host} without API keys: configure apiKeys in the policy file, or bind 127.0.0.1`, [
      { path: 'HOST', message: 'non-loopback address without API keys' },
    ]);
  }
  await app.listen(config.gateway.PORT, host);
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : config.gateway.PORT;
  if (localMode) {
    logger.warn('no API keys configured: serving 127.0.0.1 only, every request acts as the built-in local admin');
  }
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  logger.log({ url: `${origin}/graphql`, mcp: `${origin}/mcp`, startupMs: Math.round(performance.now() - startedAt), config: maskConfig(config) }, 'Toolgate listening');
  return app;
}
