import { convertTool } from './convert.tool';
import { listCurrenciesTool } from './list-currencies.tool';

export const tools = [convertTool, listCurrenciesTool];
