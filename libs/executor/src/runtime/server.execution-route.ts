import { InProcessHealthProbe } from '../health/tool-health.probe';
import { IsolatedToolInvoker } from '../isolation/isolated.tool-invoker';
import type { ExecutionRoute } from '../routing/execution-route.types';
import { InProcessToolInvoker } from './in-process.tool-invoker';

/**
 * `server` tools: plugin code in worker threads that can be terminated (isolation `worker`, the
 * default; the workers also run the health checks) or in the server's own thread (`none`).
 */
export const serverExecutionRoute: ExecutionRoute = {
  kind: 'server',
  create: ({ catalog, options }) => {
    if (options.isolation === 'none') return { invoker: new InProcessToolInvoker(catalog), probe: new InProcessHealthProbe(catalog) };
    const isolated = new IsolatedToolInvoker(catalog, options.worker);
    return { invoker: isolated, probe: isolated, close: () => isolated.close() };
  },
};
