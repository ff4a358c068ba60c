import type { INestApplicationContext, ModuleMetadata } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { RegistryModule, type RegistryModuleOptions, ToolVersionState } from '@toolgate/registry';
import { type DatabaseKind, testDatabase } from './databases';

export interface RegistryHarnessOptions {
  /** Default: none. */
  pluginDirs?: string[];
  /** Default: null (no policy file). */
  policyFile?: string | null;
  sessions?: RegistryModuleOptions['sessions'];
  /** Default: DEFAULT_USAGE_EXAMPLE_BOUNDS. */
  usageExamples?: RegistryModuleOptions['usageExamples'];
  /** Default: none (every load imports). */
  pluginImportCache?: string;
  /** For modules and providers that rely on the registry's services without importing it. */
  isGlobal?: boolean;
  /** Modules imported after the registry (e.g. RetrievalModule). */
  imports?: ModuleMetadata['imports'];
  providers?: ModuleMetadata['providers'];
}

export interface RegistryHarness {
  /** The running application; `restart` replaces it. */
  readonly app: INestApplicationContext;
  readonly db: Awaited<ReturnType<typeof testDatabase>>;
  /** Closes the application and boots a new one over the same database, the way a process restart does. */
  restart(options?: RegistryHarnessOptions): Promise<INestApplicationContext>;
  /** Closes the application, then drops the database. */
  close(): Promise<void>;
}

/** A RegistryModule (new versions ACTIVE) over a fresh test database of `kind`, initialised. */
export async function startRegistry(kind: DatabaseKind, options: RegistryHarnessOptions = {}): Promise<RegistryHarness> {
  const db = await testDatabase(kind);
  let app: INestApplicationContext;
  try {
    app = await boot(db.options, options);
  } catch (error) {
    await db.drop();
    throw error;
  }
  return {
    db,
    get app() {
      return app;
    },
    async restart(next = options) {
      await app.close();
      app = await boot(db.options, next);
      return app;
    },
    async close() {
      await app.close();
      await db.drop();
    },
  };
}

async function boot(database: RegistryModuleOptions['database'], options: RegistryHarnessOptions): Promise<INestApplicationContext> {
  const { pluginDirs = [], policyFile = null, sessions, usageExamples, pluginImportCache, isGlobal, imports = [], providers = [] } = options;
  const moduleRef = await Test.createTestingModule({
    imports: [
      RegistryModule.forRoot({
        database,
        pluginDirs,
        policyFile,
        newVersionState: ToolVersionState.ACTIVE,
        ...(sessions ? { sessions } : {}),
        ...(usageExamples ? { usageExamples } : {}),
        ...(pluginImportCache ? { pluginImportCache } : {}),
        ...(isGlobal !== undefined ? { isGlobal } : {}),
      }),
      ...imports,
    ],
    providers,
  }).compile();
  return moduleRef.init();
}
