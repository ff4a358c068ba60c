import { statsTool } from './stats.tool';
import { topTermsTool } from './top-terms.tool';

export const tools = [statsTool, topTermsTool];
