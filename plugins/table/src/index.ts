import { filterSortTool } from './filter-sort.tool';
import { groupByTool } from './group-by.tool';
import { parseCsvTool } from './parse-csv.tool';

export const tools = [parseCsvTool, groupByTool, filterSortTool];
