import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import { z } from 'zod';
import type { ToolIndexDriver } from '../retrieval.drivers';
import { ElasticsearchToolIndex, type ElasticsearchToolIndexOptions } from './elasticsearch.tool-index';

type Settings = { elasticsearch?: Pick<ElasticsearchToolIndexOptions, 'node' | 'indexPrefix' | 'requestTimeoutMs'> };

const env = {
  ELASTICSEARCH_URL: z.url().optional(),
  TOOLGATE_ES_INDEX: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]*$/, 'must be a lowercase Elasticsearch index name')
    .default('toolgate-tools'),
};

/** A cluster at ELASTICSEARCH_URL (BM25 + dense_vector kNN, fused here); ELASTICSEARCH_URL alone selects it, as in the production profile. */
export const elasticsearchIndexDriver = {
  name: 'elasticsearch',
  env,
  impliedBy: (values) => values.ELASTICSEARCH_URL !== undefined,
  problems: (values) => (values.ELASTICSEARCH_URL === undefined ? [{ path: 'ELASTICSEARCH_URL', message: 'is required when TOOLGATE_INDEX=elasticsearch' }] : []),
  options: (values): Settings => ({
    elasticsearch: values.ELASTICSEARCH_URL ? { node: values.ELASTICSEARCH_URL, indexPrefix: values.TOOLGATE_ES_INDEX } : undefined,
  }),
  create: (options) => {
    if (!options.elasticsearch) throw new ToolgateError(ErrorCode.INVALID_CONFIG, 'the elasticsearch driver needs ELASTICSEARCH_URL', [{ path: 'ELASTICSEARCH_URL', message: 'required' }]);
    return new ElasticsearchToolIndex(options.elasticsearch);
  },
} as const satisfies ToolIndexDriver<'elasticsearch', typeof env, Settings>;
