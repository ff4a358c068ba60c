import { convertTimezoneTool } from './convert-timezone.tool';
import { differenceTool } from './difference.tool';
import { nowTool } from './now.tool';
import { resolveDateTool } from './resolve-date.tool';

export const tools = [nowTool, convertTimezoneTool, resolveDateTool, differenceTool];
