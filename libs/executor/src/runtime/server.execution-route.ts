import { InProcessHealthProbe } from '../health/tool-health.probe';
import { IsolatedToolInvoker } from '../isolation/isolated.tool-invoker';
import type { ExecutionRoute } from '../routing/execution-route.types';
import { InProcessToolInvoker } from './in-process.tool-invoker';

/**
 * `server` tools: plugin code in worker processes that can be killed (isolation `worker`, the
 * default; the workers also run the health checks; spares are warmed at boot) or in the server's own
 * thread (`none`).
 */
export const serverExecutionRoute: ExecutionRoute = {
  kind: 'server',
  create: ({ catalog, options }) => {
    if (options.isolation === 'none') return { invoker: new InProcessToolInvoker(catalog), probe: new InProcessHealthProbe(catalog) };
    const isolated = new IsolatedToolInvoker(catalog, options.worker);
    const start = async () => {
      if (!options.worker.warmAtBoot) return;
      const active = catalog
        .activeTools()
        .flatMap((tool) => (tool.active && catalog.manifest(tool.id, tool.active.version)?.execution === 'server' ? [{ toolId: tool.id, version: tool.active.version }] : []));
      await isolated.warmAll(active);
    };
    return { invoker: isolated, probe: isolated, start, close: () => isolated.close() };
  },
};
