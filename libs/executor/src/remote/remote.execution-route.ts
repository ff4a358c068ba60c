import type { ExecutionRoute } from '../routing/execution-route.types';
import { RemoteToolInvoker } from './remote.tool-invoker';

/** `remote` tools: calls over NATS to the tool workers that announced them (see RemoteWorkers in the registry); healthy while one is alive. */
export const remoteExecutionRoute: ExecutionRoute = {
  kind: 'remote',
  create: ({ catalog, remote }) => {
    const invoker = new RemoteToolInvoker(catalog, remote);
    return { invoker, probe: invoker };
  },
};
