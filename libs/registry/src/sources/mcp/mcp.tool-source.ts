import { Injectable } from '@nestjs/common';
import type { PluginLoadResult } from '../npm/plugin.loader';
import { ToolSource } from '../tool-source.port';
import { McpConnections } from './mcp.connections';

/** The tools of the MCP servers in the config file's `mcpServers`: one package per server, `<server>/<tool>` ids. */
@Injectable()
export class McpToolSource extends ToolSource {
  readonly kind = 'mcp';
  override readonly changes$;

  constructor(private readonly connections: McpConnections) {
    super();
    this.changes$ = connections.changes$;
  }

  load(): Promise<PluginLoadResult[]> {
    return this.connections.sync();
  }

  override loadChanged(): Promise<PluginLoadResult[]> {
    return this.connections.syncChanged();
  }
}
