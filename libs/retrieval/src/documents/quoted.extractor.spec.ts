import { extractQuoted, toolNameKey, withoutQuotedValues } from './quoted.extractor';

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

describe('withoutQuotedValues', () => {
  it('drops the values a request introduces as a name or a text to write', () => {
    expect(withoutQuotedValues("Create a project named 'Annual Market Analysis' and assign it to Li Hua")).toBe('Create a project named and assign it to Li Hua');
    expect(withoutQuotedValues("Save a memo with the content 'Meeting at 3 PM', then change its content to 'Meeting at 10 AM'.")).toBe('Save a memo with the content , then change its content to .');
    expect(withoutQuotedValues('Write: "Quarterly sales report" in the file')).toBe('Write: in the file');
  });

  it('drops the values listed after a dropped one', () => {
    expect(withoutQuotedValues("Filter the locations named 'alpha', 'beta', and 'gamma'")).toBe('Filter the locations named');
  });

  it('keeps a quote that says what to work on rather than a value to store', () => {
    for (const text of [
      "Generate an image of 'a man wearing a red dress'",
      "'chai kaise bnaye', ask the model exactly this",
      "The maintenance config for 'sandcastle'",
      "Play 'Thriller' by Michael Jackson",
    ])
      expect(withoutQuotedValues(text)).toBe(text);
  });

  it('keeps a quote that names a tool, in any spelling of its name', () => {
    const tools = new Set([toolNameKey('weather/getForecast')]);
    expect(withoutQuotedValues("Use the tool called 'weather_get_forecast' for Oslo", tools)).toBe("Use the tool called 'weather_get_forecast' for Oslo");
    expect(withoutQuotedValues("Use the tool called 'forecast' for Oslo", tools)).toBe('Use the tool called for Oslo');
  });

  it('keeps the word that introduces a value, so nothing is left empty', () => {
    expect(withoutQuotedValues("Titled 'Q3 plan'")).toBe('Titled');
    expect(withoutQuotedValues("'Q3 plan'")).toBe("'Q3 plan'");
  });
});
