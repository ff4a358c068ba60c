import { checkAgainstSchema } from '@toolgate/sdk';
import { toolTester } from '@toolgate/sdk/testing';
import { tools } from './index';

const { byName, call, conformance } = toolTester(tools);

it('every text tool meets the sdk contract and says when not to use it', async () => {
  expect(await conformance({ minExamples: 2, maxExamples: 4, descriptionPattern: /do not use/i })).toEqual({});
});

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
    const topTerms = (args: unknown) => checkAgainstSchema(byName('top-terms').inputSchema, args).map((d) => d.path);
    expect(topTerms({ text: 'x', k: 0 })).toEqual(['/k']);
    expect(topTerms({ text: 'x', ngram: 4 })).toEqual(['/ngram']);
    expect(topTerms({ k: 3 })).toEqual(['']);
    expect(checkAgainstSchema(byName('stats').inputSchema, { text: 'x', wordsPerMinute: 10 })).not.toEqual([]);
  });
});
