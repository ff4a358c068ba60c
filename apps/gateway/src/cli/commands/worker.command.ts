import { delimiter } from 'node:path';
import type { Command } from 'commander';

export function registerWorkerCommand(program: Command): void {
  program
    .command('worker')
    .description('host plugin packages in this process and serve their tools to gateways over NATS ($TOOLGATE_NATS_URL)')
    .option('--nats <urls>', 'NATS servers, comma-separated (default: $TOOLGATE_NATS_URL)')
    .option('--plugins <dirs>', `plugin folders, separated by "${delimiter}" (default: $TOOLGATE_PLUGIN_DIRS, else ./plugins and ./node_modules)`)
    .option('--id <id>', 'worker id in announcements and logs (default: $TOOLGATE_WORKER_ID, else host-pid)')
    .option('--capacity <n>', 'calls run at once; more are answered OVERLOADED (default: $TOOLGATE_WORKER_CAPACITY or 16)')
    .action(async (options: { nats?: string; plugins?: string; id?: string; capacity?: string }) => {
      const env = {
        ...process.env,
        ...(options.nats ? { TOOLGATE_NATS_URL: options.nats } : {}),
        ...(options.plugins ? { TOOLGATE_PLUGIN_DIRS: options.plugins } : {}),
        ...(options.id ? { TOOLGATE_WORKER_ID: options.id } : {}),
        ...(options.capacity ? { TOOLGATE_WORKER_CAPACITY: options.capacity } : {}),
      };
      const { loadWorkerConfig } = await import('../../worker/worker.config');
      const config = loadWorkerConfig(env);
      const { startTracing } = await import('../../tracing/tracing.bootstrap');
      const tracing = startTracing(config.tracing);
      const { startToolWorker } = await import('../../worker/tool-worker.main');
      const worker = await startToolWorker(config);
      const stop = async () => {
        await worker.close();
        await tracing?.shutdown();
      };
      process.once('SIGTERM', () => void stop());
      process.once('SIGINT', () => void stop());
    });
}
