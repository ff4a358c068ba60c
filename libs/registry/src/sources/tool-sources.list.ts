import type { Type } from '@nestjs/common';
import { McpToolSource } from './mcp/mcp.tool-source';
import { NpmPackageToolSource } from './npm/npm-package.tool-source';
import { RemoteToolSource } from './remote/remote.tool-source';
import type { ToolSource } from './tool-source.port';

/** The sources the catalog loads tools from, one line each. */
export const TOOL_SOURCES: readonly Type<ToolSource>[] = [NpmPackageToolSource, McpToolSource, RemoteToolSource];

/** Injection token of the instantiated list. */
export const TOOL_SOURCE_LIST = Symbol('TOOL_SOURCE_LIST');
