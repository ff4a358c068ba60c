import { closeSync, openSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';
import { type PlannerModuleOptions, plannerEnvSchema, plannerOptionsFromEnv } from '@toolgate/planner';
import { ErrorCode, ToolgateError } from '@toolgate/sdk';

/** What `eval plan` and `eval calls` share: the planner and embedder to run, and where per-sample lines go. */
export interface EvalRunFlags {
  planner: string;
  embedder: string;
  perSample?: string;
}

/**
 * The planner options for `--planner` and the embedder of `--embedder`, both checked by name: the LLM planner
 * reads its endpoint from the environment (as the server does), so an eval that names `--planner llm` (or `auto`) with no
 * endpoint fails before any sample instead of on the first request; the deterministic planner reads nothing from it.
 */
export function evalRunOptions(flags: EvalRunFlags, env: NodeJS.ProcessEnv): { planner: Pick<PlannerModuleOptions, 'planner' | 'llm'>; embedder: 'local' | 'none' } {
  const embedder = flags.embedder;
  if (embedder !== 'local' && embedder !== 'none') {
    throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `unknown embedder "${flags.embedder}" (available: local, none)`, [{ path: '--embedder', message: 'unknown embedder' }]);
  }
  const planner = flags.planner;
  if (planner !== 'deterministic' && planner !== 'llm' && planner !== 'auto') {
    throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `unknown planner "${planner}" (available: deterministic, auto, llm)`, [{ path: '--planner', message: 'unknown planner' }]);
  }
  const usesModel = planner !== 'deterministic';
  const parsed = plannerEnvSchema.safeParse(usesModel ? env : {});
  if (!parsed.success) {
    const details = parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
    throw new ToolgateError(ErrorCode.INVALID_CONFIG, `invalid environment for --planner ${planner}`, details);
  }
  const { llm } = plannerOptionsFromEnv(parsed.data);
  if (usesModel && !llm.apiKey && !llm.baseURL) {
    throw new ToolgateError(ErrorCode.INVALID_CONFIG, `--planner ${planner} needs an OpenAI-compatible endpoint: set OPENAI_API_KEY (api.openai.com) or OPENAI_BASE_URL (another server)`, [
      { path: 'OPENAI_API_KEY', message: 'is not set' },
      { path: 'OPENAI_BASE_URL', message: 'is not set' },
    ]);
  }
  return { planner: { planner, llm }, embedder };
}

/** `--per-sample FILE`: one JSON line per sample, the file opened before any work so a path that cannot be written fails at once and by name. */
export class PerSampleWriter {
  private constructor(private readonly fd: number) {}

  static open(path: string | undefined): PerSampleWriter | undefined {
    if (path === undefined) return undefined;
    try {
      return new PerSampleWriter(openSync(resolve(path), 'w'));
    } catch (error) {
      throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `cannot write --per-sample ${path}: ${(error as Error).message}`, [{ path: '--per-sample', message: 'not writable' }], { cause: error });
    }
  }

  write(record: object): void {
    writeSync(this.fd, `${JSON.stringify(record)}\n`);
  }

  close(): void {
    closeSync(this.fd);
  }
}
