import { Injectable, Logger } from '@nestjs/common';
import { CatalogService } from '@toolgate/registry';
import { ErrorCode, type ToolContext, ToolgateError, type ToolLogger, type ToolSpan } from '@toolgate/sdk';
import { toToolgateError, untilAborted } from './tool.errors';
import { type Invocation, ToolInvoker } from './tool-invoker.port';
import { TrustedPluginCode } from './trusted-plugin.code';

const NO_SPAN: ToolSpan = { setAttribute: () => undefined, addEvent: () => undefined };

/**
 * Runs a tool version's `run` in this process, once (no retries: a resilient invoker wraps this one).
 * The call ends when the tool returns or the invocation's signal aborts, whichever comes first; code
 * that ignores its signal keeps running in the background, which only an isolated invoker can stop.
 */
@Injectable()
export class InProcessToolInvoker extends ToolInvoker {
  private readonly logger = new Logger('ToolCall');
  private readonly code: TrustedPluginCode;

  constructor(catalog: CatalogService) {
    super();
    this.code = new TrustedPluginCode(catalog);
  }

  async invoke(invocation: Invocation): Promise<unknown> {
    const ref = `${invocation.toolId}@${invocation.version}`;
    const run = this.code.manifest(invocation.toolId, invocation.version)?.run;
    if (!run) throw new ToolgateError(ErrorCode.UNAVAILABLE, `tool ${ref} has no code loaded in this process`);
    const ctx: ToolContext = {
      signal: invocation.signal,
      logger: this.toolLogger(ref, invocation),
      span: invocation.span ?? NO_SPAN,
      callId: invocation.callId,
      idempotencyKey: invocation.idempotencyKey,
      principal: { tenant: invocation.principal.tenant, subject: invocation.principal.subject },
    };
    try {
      return await untilAborted(
        Promise.resolve().then(() => run(invocation.arguments, ctx)),
        invocation.signal,
      );
    } catch (thrown) {
      throw toToolgateError(thrown);
    }
  }

  private toolLogger(ref: string, invocation: Invocation): ToolLogger {
    const base = { tool: ref, runId: invocation.runId, stepId: invocation.stepId, callId: invocation.callId };
    return {
      debug: (message, fields) => this.logger.debug({ ...fields, ...base }, message),
      info: (message, fields) => this.logger.log({ ...fields, ...base }, message),
      warn: (message, fields) => this.logger.warn({ ...fields, ...base }, message),
      error: (message, fields) => this.logger.error({ ...fields, ...base }, message),
    };
  }
}
