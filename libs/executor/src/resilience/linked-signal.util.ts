import { setMaxListeners } from 'node:events';

/**
 * An AbortSignal that fires when any source does, optionally after `timeoutMs` (reason: a TimeoutError
 * DOMException). `dispose` clears the timer and detaches from long-lived sources, which AbortSignal.any
 * and AbortSignal.timeout do not allow.
 */
export function linkedSignal(sources: AbortSignal[], timeoutMs?: number): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const aborted = sources.find((s) => s.aborted);
  if (aborted) {
    controller.abort(aborted.reason);
    return { signal: controller.signal, dispose: () => {} };
  }
  const detach = sources.map((source) => {
    const onAbort = () => controller.abort(source.reason);
    source.addEventListener('abort', onAbort, { once: true });
    return () => source.removeEventListener('abort', onAbort);
  });
  const timer = timeoutMs === undefined ? undefined : setTimeout(() => controller.abort(new DOMException(`timed out after ${timeoutMs} ms`, 'TimeoutError')), timeoutMs);
  return {
    signal: controller.signal,
    dispose: () => {
      clearTimeout(timer);
      for (const remove of detach) remove();
    },
  };
}

/**
 * A controller whose signal many calls link to at once (see linkedSignal): Node warns past 10
 * listeners on one signal, which here is the normal load, not a leak.
 */
export function unboundedListeners(controller: AbortController): AbortController {
  setMaxListeners(0, controller.signal);
  return controller;
}
