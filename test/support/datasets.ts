import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * The shared evaluation sets, read in place: `TOOLGATE_DATASETS` when set, else `../shared/datasets`
 * beside the checkout, else this machine's `/work/shared/datasets` (a clean clone elsewhere still finds
 * them). Missing sets are an error naming where it looked, never a skip.
 */
export function datasetsDir(): string {
  const candidates = [process.env.TOOLGATE_DATASETS, resolve(__dirname, '..', '..', '..', 'shared', 'datasets'), '/work/shared/datasets'].filter((dir): dir is string => !!dir);
  const found = candidates.find((dir) => existsSync(dir));
  if (!found) throw new Error(`evaluation datasets not found; looked in ${candidates.join(', ')} (set TOOLGATE_DATASETS)`);
  return found;
}
