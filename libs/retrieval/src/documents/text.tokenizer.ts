const STOP_WORDS = new Set(
  'a an and are as at be but by can do does for from has have how i if in into is it its me my of on or please should so than that the their then there these this to use used using want was we what when where which while who will with would you your'.split(
    ' ',
  ),
);

/** "ResearchHelper" and "get_weatherForecast" read as words: tool names are often written that way. */
export const splitIdentifiers = (text: string): string => text.replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2').replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2');

/** Lowercase words of letters and digits, stop words dropped, a light plural strip so "units" meets "unit". */
export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  for (const raw of splitIdentifiers(text)
    .toLowerCase()
    .normalize('NFKD')
    .split(/[^\p{L}\p{N}]+/u)) {
    if (raw.length === 0 || STOP_WORDS.has(raw)) continue;
    tokens.push(raw.length > 3 && raw.endsWith('s') && !raw.endsWith('ss') ? raw.slice(0, -1) : raw);
  }
  return tokens;
}
