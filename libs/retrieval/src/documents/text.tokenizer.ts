const STOP_WORDS = new Set(
  'a an and are as at be but by can do does for from has have how i if in into is it its me my of on or please should so than that the their then there these this to use used using want was we what when where which while who will with would you your'.split(
    ' ',
  ),
);

/** "ResearchHelper" and "get_weatherForecast" read as words: tool names are often written that way. */
export const splitIdentifiers = (text: string): string => text.replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2').replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2');

/** Scripts written without spaces between words (Chinese, Japanese) or indexed the same way (Korean). */
const CJK = '[\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}]';
const CJK_RUN = new RegExp(`${CJK}+`, 'gu');
const ANY_CJK = new RegExp(CJK, 'u');

/** True when the text holds a character of a CJK script: most text holds none, and is then read without looking for runs. */
export const hasCjk = (text: string): boolean => ANY_CJK.test(text);

/**
 * A CJK run's overlapping character pairs, then its characters ("换算成" -> 换算 算成 换 算 成): the usual
 * way to index these scripts without a dictionary (Lucene's CJK bigrams with unigrams), so a query's
 * words meet a document's however either is segmented, and a word the other side writes differently
 * ("平方根" / "开方") still shares a character. IDF keeps the common characters light.
 */
function bigrams(run: string): string[] {
  const chars = [...run.normalize('NFKC')];
  if (chars.length === 1) return chars;
  return [...chars.slice(1).map((char, i) => chars[i] + char), ...chars];
}

/** Share of a text's letters written in CJK scripts (0 for a text without letters). */
export function cjkShare(text: string): number {
  if (!hasCjk(text)) return 0;
  const letters = text.match(/\p{L}/gu)?.length ?? 0;
  if (letters === 0) return 0;
  let cjk = 0;
  for (const run of text.matchAll(CJK_RUN)) cjk += [...run[0]].length;
  return cjk / letters;
}

/** Words of other scripts: lowercase letters and digits, stop words dropped, a light plural strip so "units" meets "unit". */
function words(text: string, tokens: string[]): void {
  for (const raw of text.normalize('NFKD').split(/[^\p{L}\p{N}]+/u)) {
    if (raw.length === 0 || STOP_WORDS.has(raw)) continue;
    tokens.push(raw.length > 3 && raw.endsWith('s') && !raw.endsWith('ss') ? raw.slice(0, -1) : raw);
  }
}

/** The terms of a text, as both index drivers and the rerank features see them: words, and character bigrams of CJK runs. */
export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  const lower = splitIdentifiers(text).toLowerCase();
  if (!hasCjk(lower)) {
    words(lower, tokens);
    return tokens;
  }
  let from = 0;
  for (const run of lower.matchAll(CJK_RUN)) {
    words(lower.slice(from, run.index), tokens);
    tokens.push(...bigrams(run[0]));
    from = run.index + run[0].length;
  }
  words(lower.slice(from), tokens);
  return tokens;
}
