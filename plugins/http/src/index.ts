import { fetchTool } from './fetch.tool';
import { postTool } from './post.tool';

export const tools = [fetchTool, postTool];
