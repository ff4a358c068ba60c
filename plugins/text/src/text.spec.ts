import { type ToolContext, type ToolManifest, validateManifest } from '@toolgate/sdk';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { tools } from './index';

const ajv = new Ajv2020({ strict: true, strictRequired: false, allErrors: true, allowUnionTypes: true });
addFormats(ajv);

const ctx = (signal = new AbortController().signal): ToolContext => ({
  signal,
  logger: { debug() {}, info() {}, warn() {}, error() {} },
  span: { setAttribute() {}, addEvent() {} },
  callId: 'c1',
  idempotencyKey: 'k1',
  principal: { tenant: 't1', subject: 's1' },
});

const byName = (name: string) => tools.find((tool) => tool.name === name) as unknown as ToolManifest;

/** Runs a tool the way the executor would and checks the output against the tool's outputSchema. */
async function call(name: string, args: Record<string, unknown>, context = ctx()): Promise<Record<string, unknown>> {
  const tool = byName(name);
  const output = await tool.run?.(args, context);
  const validate = ajv.compile(tool.outputSchema);
  if (!validate(output)) throw new Error(`${name} output does not match its schema: ${ajv.errorsText(validate.errors)}`);
  return output as Record<string, unknown>;
}

function describeContract(namespace: string, options: { runExamples?: boolean } = {}): void {
  describe.each(tools.map((tool) => [tool.name, tool as unknown as ToolManifest] as const))(`${namespace}/%s contract`, (_name, tool) => {
    it('passes validateManifest with no issues', () => {
      expect(validateManifest(tool)).toEqual([]);
    });

    it('has 2-4 examples and a description that says when not to use it', () => {
      expect(tool.examples.length).toBeGreaterThanOrEqual(2);
      expect(tool.examples.length).toBeLessThanOrEqual(4);
      expect(tool.description).toMatch(/do not use/i);
    });

    if (options.runExamples !== false) {
      it('returns each example output for its arguments', async () => {
        for (const example of tool.examples) {
          const output = await call(tool.name, example.arguments);
          if (example.output !== undefined) expect(output).toEqual(example.output);
        }
      });
    }
  });
}

describeContract('text');

describe('text/stats', () => {
  it('counts words, sentences and paragraphs', async () => {
    const text = 'Hello world! How are you today?\n\nThis is the second paragraph. It has "two" sentences.\n\n\nThird one, no period';
    expect(await call('stats', { text })).toMatchObject({ words: 19, sentences: 5, paragraphs: 3 });
  });

  it('keeps contractions and hyphenated words as one word and counts code points', async () => {
    expect(await call('stats', { text: "Don't re-enter the café 🙂" })).toMatchObject({ words: 4, characters: 25, charactersNoSpaces: 21 });
  });

  it('scores simple text easier than dense text', async () => {
    const simple = await call('stats', { text: 'The dog ran. The sun is hot. We had fun.' });
    const dense = await call('stats', { text: 'Institutional considerations necessitate comprehensive reevaluation of interdepartmental communication methodologies.' });
    expect(simple.fleschReadingEase as number).toBeGreaterThan(90);
    expect(dense.fleschReadingEase as number).toBeLessThan(30);
    expect(dense.readability).toBe('very difficult');
  });

  it('estimates reading time from words per minute', async () => {
    const text = Array.from({ length: 476 }, () => 'word').join(' ');
    expect(await call('stats', { text })).toMatchObject({ readingTimeSeconds: 120, readingTimeMinutes: 2 });
    expect(await call('stats', { text, wordsPerMinute: 476 })).toMatchObject({ readingTimeSeconds: 60 });
  });

  it('handles empty text', async () => {
    expect(await call('stats', { text: '   ' })).toMatchObject({ words: 0, sentences: 0, paragraphs: 0, fleschReadingEase: null, readability: 'n/a' });
  });
});

describe('text/top-terms', () => {
  it('drops stop words, short words and numbers unless asked', async () => {
    const text = 'The year 2024 was the year of the model. The model of the year: a model.';
    const output = (await call('top-terms', { text, k: 5 })) as { terms: { term: string; count: number }[] };
    expect(output.terms).toEqual([
      { term: 'model', count: 3, share: 0.5 },
      { term: 'year', count: 3, share: 0.5 },
    ]);
    const all = (await call('top-terms', { text, k: 3, includeStopWords: true, includeNumbers: true, minLength: 1 })) as { terms: { term: string }[] };
    expect(all.terms.map((t) => t.term)).toEqual(['the', 'model', 'year']);
  });

  it('folds case and possessives, and limits to k', async () => {
    const output = (await call('top-terms', { text: "Alice's cat. ALICE and alice went out. Cats!", k: 1 })) as { terms: { term: string; count: number }[] };
    expect(output.terms).toEqual([{ term: 'alice', count: 3, share: 0.5 }]);
  });

  it('returns nothing for text without content words', async () => {
    expect(await call('top-terms', { text: 'the and of a' })).toEqual({ terms: [], totalTerms: 0, uniqueTerms: 0 });
  });
});

describe('text input schemas', () => {
  it('reject what run cannot take', () => {
    const topTerms = ajv.compile(byName('top-terms').inputSchema);
    expect(topTerms({ text: 'x', k: 0 })).toBe(false);
    expect(topTerms({ text: 'x', ngram: 4 })).toBe(false);
    expect(topTerms({ k: 3 })).toBe(false);
    expect(ajv.compile(byName('stats').inputSchema)({ text: 'x', wordsPerMinute: 10 })).toBe(false);
  });
});
