import { listTool } from './list.tool';
import { readTool } from './read.tool';
import { writeTool } from './write.tool';

export const tools = [writeTool, readTool, listTool];
