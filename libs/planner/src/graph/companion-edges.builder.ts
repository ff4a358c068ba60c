import type { JsonSchema } from '@toolgate/sdk';
import { linkBySchema } from '../deterministic/schema.linker';
import type { ToolEdge } from './tool.graph';

/** A tool as the catalog declares it: its schemas and the tools its manifest says it is used with. */
export interface CompanionDeclaration {
  id: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  companions?: readonly string[];
}

/**
 * The directed edges a catalog's `companions` declare. A manifest says only that two tools go together;
 * the schemas say which comes first: the one whose output fills an input of the other ("a search that
 * turns a name into the id this tool needs"). With no such link the companion follows (a notification
 * after the work). Companions that are not in the catalog are left out; two tools that name each other make one edge.
 */
export function companionEdges(tools: readonly CompanionDeclaration[]): ToolEdge[] {
  const byId = new Map(tools.map((tool) => [tool.id, tool]));
  const edges = new Map<string, ToolEdge>();
  const feeds = (from: CompanionDeclaration, to: CompanionDeclaration) => linkBySchema(to.inputSchema, [{ id: from.id, outputSchema: from.outputSchema }], new Set()).length > 0;
  for (const tool of [...tools].sort((a, b) => a.id.localeCompare(b.id))) {
    for (const id of tool.companions ?? []) {
      const companion = byId.get(id);
      if (!companion || companion.id === tool.id) continue;
      const edge = feeds(companion, tool) && !feeds(tool, companion) ? { source: companion.id, target: tool.id } : { source: tool.id, target: companion.id };
      // Two tools that name each other are one pair: the first reading stands.
      if (!edges.has(`${edge.target} ${edge.source}`)) edges.set(`${edge.source} ${edge.target}`, edge);
    }
  }
  return [...edges.values()].sort((a, b) => a.source.localeCompare(b.source) || a.target.localeCompare(b.target));
}
