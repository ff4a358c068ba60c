import { defineTool } from '@toolgate/sdk';
import { isNumeric, STOP_WORDS, words } from './text.tokenizer';

export interface TopTermsArgs {
  text: string;
  k?: number;
  minLength?: number;
  ngram?: number;
  includeStopWords?: boolean;
  includeNumbers?: boolean;
}

export interface TopTermsOutput {
  terms: { term: string; count: number; share: number }[];
  totalTerms: number;
  uniqueTerms: number;
}

export const topTermsTool = defineTool<TopTermsArgs, TopTermsOutput>({
  name: 'top-terms',
  title: 'Most frequent terms of a text',
  description:
    'Finds the k most frequent words (or two- and three-word phrases with ngram 2 or 3) in a text, ignoring case, English stop words ("the", "and", "of"...) ' +
    'and numbers, with their counts and share of all counted terms. Use it to extract keywords or topics, build a word-frequency list or tag cloud, ' +
    'or see which terms dominate a document, review or transcript. Ties are ordered alphabetically so results are stable. ' +
    'Do NOT use it for word, sentence or character counts and readability (use text/stats), or to count values in a table column (use table/group-by).',
  category: ['text'],
  tags: ['keywords', 'word frequency', 'top words', 'term frequency', 'keyword extraction', 'topics', 'ngrams', 'text analysis'],
  inputSchema: {
    type: 'object',
    properties: {
      text: { type: 'string', maxLength: 1000000, description: 'The text to analyse.' },
      k: { type: 'integer', minimum: 1, maximum: 200, default: 10, description: 'How many terms to return (default 10).' },
      minLength: { type: 'integer', minimum: 1, maximum: 30, default: 3, description: 'Ignore words shorter than this many characters (default 3).' },
      ngram: { type: 'integer', minimum: 1, maximum: 3, default: 1, description: 'Count single words (1, default) or phrases of 2 or 3 consecutive words.' },
      includeStopWords: { type: 'boolean', default: false, description: 'Count English stop words too (default false).' },
      includeNumbers: { type: 'boolean', default: false, description: 'Count numbers such as 2024 too (default false).' },
    },
    required: ['text'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      terms: {
        type: 'array',
        description: 'Most frequent terms first.',
        items: {
          type: 'object',
          properties: {
            term: { type: 'string', description: 'The lowercased word or phrase.' },
            count: { type: 'integer', description: 'Occurrences.' },
            share: { type: 'number', description: 'count / totalTerms, 4 decimals.' },
          },
          required: ['term', 'count', 'share'],
          additionalProperties: false,
        },
      },
      totalTerms: { type: 'integer', description: 'Number of counted term occurrences after filtering.' },
      uniqueTerms: { type: 'integer', description: 'Number of distinct counted terms.' },
    },
    required: ['terms', 'totalTerms', 'uniqueTerms'],
    additionalProperties: false,
  },
  examples: [
    {
      query: 'What are the top 3 keywords in this review?',
      arguments: { text: 'Great battery. The battery lasts long and the screen is great. Screen is bright; battery great.', k: 3 },
      output: {
        terms: [
          { term: 'battery', count: 3, share: 0.2727 },
          { term: 'great', count: 3, share: 0.2727 },
          { term: 'screen', count: 2, share: 0.1818 },
        ],
        totalTerms: 11,
        uniqueTerms: 6,
      },
    },
    {
      query: 'Most common two-word phrases in the transcript',
      arguments: { text: 'machine learning is fun. I like machine learning and deep learning models.', k: 2, ngram: 2 },
      output: {
        terms: [
          { term: 'machine learning', count: 2, share: 0.5 },
          { term: 'deep learning', count: 1, share: 0.25 },
        ],
        totalTerms: 4,
        uniqueTerms: 3,
      },
    },
  ],
  permissions: { scopes: [], risk: 'read' },
  limits: { timeoutMs: 5000, maxConcurrency: 16, retries: 0, idempotent: true },
  run(args) {
    const minLength = args.minLength ?? 3;
    const n = args.ngram ?? 1;
    const keep = (word: string) => [...word].length >= minLength && (args.includeStopWords || !STOP_WORDS.has(word)) && (args.includeNumbers || !isNumeric(word));
    const counts = new Map<string, number>();
    let total = 0;
    // Phrases never span a sentence break, and every word of a phrase must pass the filters.
    for (const sentence of args.text.split(/[.!?;:\n]+/)) {
      const tokens = words(sentence).map((w) => w.toLowerCase().replace(/['’]s$/, ''));
      for (let i = 0; i + n <= tokens.length; i++) {
        const gram = tokens.slice(i, i + n);
        if (!gram.every(keep)) continue;
        const term = gram.join(' ');
        counts.set(term, (counts.get(term) ?? 0) + 1);
        total++;
      }
    }
    const terms = [...counts.entries()]
      .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0))
      .slice(0, args.k ?? 10)
      .map(([term, count]) => ({ term, count, share: Math.round((count / total) * 1e4) / 1e4 }));
    return { terms, totalTerms: total, uniqueTerms: counts.size };
  },
});
