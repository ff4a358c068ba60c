import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';

/** The file beside an installed version's node_modules that says what was installed there. */
export const INSTALL_RECORD_FILE = 'toolgate-install.json';

const installRecordSchema = z.object({
  name: z.string().min(1),
  version: z.string().min(1),
  /** What the operator asked for (`weather@^1`, a tarball path). */
  spec: z.string(),
  /** Where npm fetched it from, and the registry's integrity for it (null for a local folder or tarball without one). */
  resolved: z.string().nullable(),
  integrity: z.string().nullable(),
  /** packageCodeHash of the version's node_modules: the package and every dependency it runs with. */
  codeHash: z.string().regex(/^[0-9a-f]{64}$/),
  installedAt: z.string(),
});
export type InstallRecord = z.infer<typeof installRecordSchema>;

/** The install record of a version folder; null when there is none or it is not one (a folder someone else made). */
export async function readInstallRecord(versionDir: string): Promise<InstallRecord | null> {
  try {
    const parsed = installRecordSchema.safeParse(JSON.parse(await readFile(join(versionDir, INSTALL_RECORD_FILE), 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
