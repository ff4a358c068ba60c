import { evaluateTool } from './evaluate.tool';

export const tools = [evaluateTool];
