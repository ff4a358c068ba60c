import type { PluginLoadResult } from './npm/plugin.loader';

/**
 * Port: where tool packages come from (npm plugin packages on disk today; MCP servers and remote
 * workers next). A source yields every package it offers now, loaded and validated — failures
 * included, so one bad package never stops the others; the catalog pins, versions and indexes them
 * all the same way. `location` of a result is its provenance (a package folder, a server URL).
 */
export abstract class ToolSource {
  /** Recorded with each package: which kind of source offered it. */
  abstract readonly kind: string;
  abstract load(): Promise<PluginLoadResult[]>;
}
