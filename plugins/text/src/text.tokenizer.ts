/** Words: runs of letters or digits, keeping inner apostrophes and hyphens ("don't", "well-known"). */
const WORD = /[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu;

const HAS_WORD = /[\p{L}\p{N}]/u;

export const words = (text: string): string[] => text.match(WORD) ?? [];

export const isNumeric = (word: string): boolean => /^[\p{N}.,'’-]+$/u.test(word);

export function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?…])["'”’)\]]*\s+|\n\s*\n/u)
    .map((s) => s.trim())
    .filter((s) => HAS_WORD.test(s));
}

export const paragraphs = (text: string): string[] =>
  text
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter((p) => p.length > 0);

/** English syllable estimate (vowel groups minus silent endings); numbers and non-Latin words count as one. */
export function syllables(word: string): number {
  const letters = word.toLowerCase().replace(/[^a-z]/g, '');
  if (letters.length === 0) return 1;
  if (letters.length <= 3) return 1;
  const stem = letters.replace(/(?:[^laeiouy]es|ed|[^laeiouy]e)$/, '').replace(/^y/, '');
  return Math.max(1, stem.match(/[aeiouy]{1,2}/g)?.length ?? 0);
}

export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "a about above after again against all also am an and any are aren't as at be because been before being below between both but by can " +
    "can't cannot could couldn't did didn't do does doesn't doing don't down during each even ever every few for from further get gets got had hadn't " +
    "has hasn't have haven't having he he'd he'll he's her here here's hers herself him himself his how how's however i i'd i'll i'm i've if in " +
    "into is isn't it it's its itself just let's like made make many may me might more most much must mustn't my myself never no nor not now of off " +
    "often on once one only or other others ought our ours ourselves out over own per quite rather really same say said says shan't she she'd she'll " +
    "she's should shouldn't since so some such than that that's the their theirs them themselves then there there's these they they'd they'll " +
    "they're they've this those though through thus to too two under until up upon us use used using very via was wasn't we we'd we'll we're we've " +
    "well were weren't what what's when when's where where's whether which while who who's whom whose why why's will with within without won't " +
    "would wouldn't yes yet you you'd you'll you're you've your yours yourself yourselves"
  ).split(' '),
);
