import { extractQuoted } from './quoted.extractor';

describe('extractQuoted', () => {
  it('reads double, single, typographic and backtick quotes with their spans', () => {
    const text = `write "a b" then 'c' and “d” or ‘e’ or \`f\``;
    expect(extractQuoted(text).map((q) => q.value)).toEqual(['a b', 'c', 'd', 'e', 'f']);
    const [first] = extractQuoted(text);
    expect(text.slice(first.start, first.end)).toBe('"a b"');
  });

  it('does not pair the apostrophes of contractions', () => {
    expect(extractQuoted("don't touch it's fine")).toEqual([]);
    expect(extractQuoted("don't write 'x' there").map((q) => q.value)).toEqual(['x']);
  });

  it("keeps a contraction's apostrophe inside a single-quoted text", () => {
    expect(extractQuoted("subject 'Meeting' and body 'Let's meet at 10, it's late'.").map((q) => q.value)).toEqual(['Meeting', "Let's meet at 10, it's late"]);
  });
});
