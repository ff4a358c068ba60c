import { extractUrls } from './url.extractor';

describe('extractUrls', () => {
  it('keeps query strings and drops sentence punctuation and an unbalanced bracket', () => {
    expect(extractUrls('fetch https://api.example.com/items?page=2.').map((u) => u.value)).toEqual(['https://api.example.com/items?page=2']);
    expect(extractUrls('(see https://example.org/a)').map((u) => u.value)).toEqual(['https://example.org/a']);
    expect(extractUrls('<https://status.example.com/v2/summary.json>').map((u) => u.value)).toEqual(['https://status.example.com/v2/summary.json']);
  });

  it('finds each of several URLs and nothing in plain words', () => {
    expect(extractUrls('a https://a.example.com or http://b.example.com').map((u) => u.value)).toEqual(['https://a.example.com', 'http://b.example.com']);
    expect(extractUrls('example.com is a host, not a URL')).toEqual([]);
  });
});
