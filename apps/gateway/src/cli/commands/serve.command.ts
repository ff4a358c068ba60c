import type { Command } from 'commander';
import { loadConfig } from '../../config/app.config';
import { fetchLocalModelIfMissing } from '../local-model.fetch';

export function registerServeCommand(program: Command): void {
  program
    .command('serve')
    .description('start the GraphQL server (embedded profile unless DATABASE_URL etc. are set)')
    .option('-p, --port <port>', 'port (default: $PORT or 4000)')
    .option('-H, --host <host>', 'address to bind (default: 127.0.0.1 without API keys)')
    .action(async (options: { port?: string; host?: string }) => {
      const startedAt = performance.now();
      const env = { ...process.env, ...(options.port ? { PORT: options.port } : {}), ...(options.host ? { HOST: options.host } : {}) };
      const appConfig = loadConfig(env);
      fetchLocalModelIfMissing(appConfig.retrieval);
      const { startTracing } = await import('../../tracing/tracing.bootstrap');
      const tracing = startTracing(appConfig.gateway);
      const { startServer } = await import('../../gateway.server');
      const app = await startServer(appConfig, startedAt);
      const stop = async () => {
        await app.close();
        await tracing?.shutdown();
      };
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
    });
}
