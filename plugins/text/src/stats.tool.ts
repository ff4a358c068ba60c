import { defineTool } from '@toolgate/sdk';
import { paragraphs, sentences, syllables, words } from './text.tokenizer';

export interface StatsArgs {
  text: string;
  wordsPerMinute?: number;
}

export interface StatsOutput {
  characters: number;
  charactersNoSpaces: number;
  words: number;
  sentences: number;
  paragraphs: number;
  syllables: number;
  averageWordLength: number;
  averageSentenceLength: number;
  fleschReadingEase: number | null;
  readability: string;
  readingTimeSeconds: number;
  readingTimeMinutes: number;
}

export const statsTool = defineTool<StatsArgs, StatsOutput>({
  name: 'stats',
  title: 'Text statistics and readability',
  description:
    'Counts characters (with and without spaces), words, sentences, paragraphs and syllables of a text and derives the average word length, average ' +
    'sentence length, the Flesch reading ease score with its readability band (very easy ... very difficult) and the estimated reading time. ' +
    'Use it for "how many words is this", "word count / character count", "how long does this take to read", "is this text easy to read", ' +
    'checking an essay or tweet length. Readability assumes English text. Do NOT use it to find the most frequent words or keywords ' +
    '(use text/top-terms), to analyse a CSV table (use table/parse-csv) or to evaluate numbers in the text (use calculator/evaluate).',
  category: ['text'],
  tags: ['word count', 'character count', 'sentence count', 'readability', 'flesch', 'reading time', 'text analysis', 'statistics'],
  inputSchema: {
    type: 'object',
    properties: {
      text: { type: 'string', maxLength: 1000000, description: 'The text to analyse.' },
      wordsPerMinute: {
        type: 'integer',
        minimum: 50,
        maximum: 1000,
        default: 238,
        description: 'Reading speed used for the reading time (default 238, the average adult silent reading speed).',
      },
    },
    required: ['text'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      characters: { type: 'integer', description: 'Characters (Unicode code points) including spaces.' },
      charactersNoSpaces: { type: 'integer', description: 'Characters excluding whitespace.' },
      words: { type: 'integer', description: 'Number of words.' },
      sentences: { type: 'integer', description: 'Number of sentences.' },
      paragraphs: { type: 'integer', description: 'Number of paragraphs (blocks separated by blank lines).' },
      syllables: { type: 'integer', description: 'Estimated number of syllables (English heuristic).' },
      averageWordLength: { type: 'number', description: 'Mean letters per word, 2 decimals.' },
      averageSentenceLength: { type: 'number', description: 'Mean words per sentence, 2 decimals.' },
      fleschReadingEase: {
        type: ['number', 'null'],
        description: 'Flesch reading ease, 206.835 - 1.015 words/sentence - 84.6 syllables/word, 1 decimal; higher is easier; null for an empty text.',
      },
      readability: {
        type: 'string',
        enum: ['very easy', 'easy', 'fairly easy', 'standard', 'fairly difficult', 'difficult', 'very difficult', 'n/a'],
        description: 'Flesch band of the score.',
      },
      readingTimeSeconds: { type: 'integer', description: 'Estimated silent reading time in seconds.' },
      readingTimeMinutes: { type: 'number', description: 'Estimated reading time in minutes, 1 decimal.' },
    },
    required: [
      'characters',
      'charactersNoSpaces',
      'words',
      'sentences',
      'paragraphs',
      'syllables',
      'averageWordLength',
      'averageSentenceLength',
      'fleschReadingEase',
      'readability',
      'readingTimeSeconds',
      'readingTimeMinutes',
    ],
    additionalProperties: false,
  },
  examples: [
    {
      query: 'How many words and sentences are in "The cat sat on the mat. It was happy."?',
      arguments: { text: 'The cat sat on the mat. It was happy.' },
      output: {
        characters: 37,
        charactersNoSpaces: 29,
        words: 9,
        sentences: 2,
        paragraphs: 1,
        syllables: 10,
        averageWordLength: 3,
        averageSentenceLength: 4.5,
        fleschReadingEase: 108.3,
        readability: 'very easy',
        readingTimeSeconds: 2,
        readingTimeMinutes: 0,
      },
    },
    {
      query: 'Is this paragraph hard to read?',
      arguments: {
        text: 'Notwithstanding considerable institutional opposition, the administration implemented comprehensive regulatory modifications affecting international telecommunications infrastructure.',
      },
    },
    { query: 'How long would it take to read my essay at 200 words per minute?', arguments: { text: 'My essay.\n\nIt has two paragraphs.', wordsPerMinute: 200 } },
  ],
  permissions: { scopes: [], risk: 'read' },
  limits: { timeoutMs: 5000, maxConcurrency: 16, retries: 0, idempotent: true },
  run(args) {
    const text = args.text;
    const tokens = words(text);
    const sentenceCount = tokens.length === 0 ? 0 : Math.max(1, sentences(text).length);
    const syllableCount = tokens.reduce((sum, word) => sum + syllables(word), 0);
    const letters = tokens.reduce((sum, word) => sum + [...word.replace(/['’-]/g, '')].length, 0);
    const flesch = tokens.length === 0 ? null : round(206.835 - 1.015 * (tokens.length / sentenceCount) - 84.6 * (syllableCount / tokens.length), 1);
    const seconds = Math.round((tokens.length / (args.wordsPerMinute ?? 238)) * 60);
    return {
      characters: [...text].length,
      charactersNoSpaces: [...text.replace(/\s/g, '')].length,
      words: tokens.length,
      sentences: sentenceCount,
      paragraphs: paragraphs(text).length,
      syllables: syllableCount,
      averageWordLength: tokens.length ? round(letters / tokens.length, 2) : 0,
      averageSentenceLength: sentenceCount ? round(tokens.length / sentenceCount, 2) : 0,
      fleschReadingEase: flesch,
      readability: band(flesch),
      readingTimeSeconds: seconds,
      readingTimeMinutes: round(seconds / 60, 1),
    };
  },
});

const round = (x: number, digits: number): number => Math.round(x * 10 ** digits) / 10 ** digits;

function band(score: number | null): string {
  if (score === null) return 'n/a';
  if (score >= 90) return 'very easy';
  if (score >= 80) return 'easy';
  if (score >= 70) return 'fairly easy';
  if (score >= 60) return 'standard';
  if (score >= 50) return 'fairly difficult';
  if (score >= 30) return 'difficult';
  return 'very difficult';
}
