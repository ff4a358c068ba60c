import type { Observable } from 'rxjs';
import type { PluginLoadResult } from './npm/plugin.loader';

/**
 * Port: where tool packages come from (npm plugin packages on disk, MCP servers; remote workers
 * next). A source yields every package it offers now, loaded and validated — failures included, so
 * one bad package never stops the others; the catalog pins, versions and indexes them all the same
 * way. `location` of a result is its provenance (a package folder, `mcp:<server>`).
 */
export abstract class ToolSource {
  /** Recorded with each package: which kind of source offered it. */
  abstract readonly kind: string;
  abstract load(): Promise<PluginLoadResult[]>;
  /** Emits when what the source offers changed on its own (an MCP server's `list_changed`): the catalog loads that source again. */
  readonly changes$?: Observable<void>;
  /** What to load after `changes$` emitted; by default everything (`load`). */
  loadChanged(): Promise<PluginLoadResult[]> {
    return this.load();
  }
}
