import { Field, Int, ObjectType } from '@nestjs/graphql';
import type { McpServerStatus } from '@toolgate/registry';

@ObjectType({ description: 'A listed tool the catalog refused, and why.' })
export class McpRefusedTool {
  @Field({ description: "JSON pointer into the server's tool list, e.g. /tools/3/inputSchema/properties/x." }) path!: string;
  @Field() message!: string;
}

@ObjectType({ description: 'An MCP server from `mcpServers` in the config file (Toolgate as its client). Header and env values are never shown.' })
export class McpServer {
  @Field({ description: 'Its tools are `<name>/<tool>`.' }) name!: string;
  @Field({ description: 'stdio or http.' }) transport!: string;
  @Field({ description: 'The command (without its arguments) or the URL (without its query).' }) target!: string;
  @Field({ description: 'CONNECTING, READY, FAILED (see lastError; reconnected with backoff) or DISABLED.' }) state!: string;
  @Field(() => String, { nullable: true, description: 'The protocol revision negotiated, e.g. 2025-11-25 or 2026-07-28.' }) protocolVersion!: string | null;
  @Field(() => String, { nullable: true }) serverName!: string | null;
  @Field(() => String, { nullable: true, description: 'As the server reports it; the catalog version is its semver form.' }) serverVersion!: string | null;
  @Field(() => Int, { description: 'Tools offered to the catalog.' }) toolCount!: number;
  @Field(() => [McpRefusedTool]) refusedTools!: McpRefusedTool[];
  @Field(() => String, { nullable: true }) lastError!: string | null;
  @Field(() => Date, { nullable: true }) lastSyncAt!: Date | null;
  @Field(() => Int, { description: 'Open per-tenant sessions (stdio: processes).' }) sessions!: number;

  static from(status: McpServerStatus): McpServer {
    return { ...status, lastSyncAt: status.lastSyncAt === null ? null : new Date(status.lastSyncAt) };
  }
}
