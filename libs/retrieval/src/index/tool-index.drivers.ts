import { elasticsearchIndexDriver } from '../elasticsearch/elasticsearch.index-driver';
import { embeddedIndexDriver } from '../embedded/embedded.index-driver';

/** The tool index drivers (TOOLGATE_INDEX), one line each; the first is the default. */
export const TOOL_INDEX_DRIVERS = [embeddedIndexDriver, elasticsearchIndexDriver] as const;
