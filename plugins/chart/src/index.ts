import { renderTool } from './render.tool';

export const tools = [renderTool];
