import { extractTableTool } from './extract-table.tool';
import { inspectChartTool } from './inspect-chart.tool';

export const tools = [extractTableTool, inspectChartTool];
