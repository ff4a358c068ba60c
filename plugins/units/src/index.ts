import { convertTool } from './convert.tool';
import { listUnitsTool } from './list-units.tool';

export const tools = [convertTool, listUnitsTool];
