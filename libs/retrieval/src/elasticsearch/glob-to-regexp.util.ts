/**
 * Translates a tool glob (see `compileToolGlob` in @toolgate/sdk: picomatch with `dot: true`) into a
 * Lucene regular expression for an Elasticsearch `regexp` query on the `id` keyword, so scope filters
 * run inside Elasticsearch. Lucene regexps are anchored at both ends, like picomatch's.
 *
 * - `*` (and any run of stars other than exactly two) stays within a segment: `[^/]*`
 * - `**` as a whole segment crosses segments, and like picomatch also matches zero of them
 *   (`a/**` matches `a`, `**\/b` matches `b`, `a/**\/b` matches `a/b`); elsewhere it is a `*`
 * - `?` is one character other than `/`
 * - `{a,b}` is an alternation (nested allowed, empty alternatives allowed), single-character ranges `{1..3}` / `{a..c}`;
 *   braces with neither a comma nor a range are literal, as in picomatch
 * - every other character is literal; non-alphanumerics are escaped (escaping a letter would make a
 *   Lucene character class such as `\d`)
 */
export function globToRegexp(glob: string): string {
  let out = '';
  let i = 0;
  while (i < glob.length) {
    const c = glob[i];
    if (c === '*') {
      let end = i;
      while (glob[end] === '*') end++;
      const wholeSegment = end - i === 2 && (i === 0 || glob[i - 1] === '/') && (end === glob.length || glob[end] === '/');
      if (!wholeSegment) out += '[^/]*';
      else if (end === glob.length) out += '.*';
      else {
        // `**/`: any number of leading segments, including none.
        out += '(.*/)?';
        end++;
      }
      i = end;
    } else if (c === '/' && glob.slice(i) === '/**') {
      // A trailing `/**` also matches the path without it.
      out += '(/.*)?';
      i = glob.length;
    } else if (c === '?') {
      out += '[^/]';
      i++;
    } else if (c === '{') {
      const close = matchingBrace(glob, i);
      const alternatives = close < 0 ? null : braceAlternatives(glob.slice(i + 1, close));
      if (!alternatives) {
        out += '\\{';
        i++;
        continue;
      }
      const translated = alternatives.map(globToRegexp);
      const nonEmpty = translated.filter((a) => a !== '');
      // Lucene rejects an empty branch such as `(a|)`: make the group optional instead.
      if (nonEmpty.length > 0) out += `(${nonEmpty.join('|')})${nonEmpty.length < translated.length ? '?' : ''}`;
      i = close + 1;
    } else {
      out += /[a-z0-9]/i.test(c) ? c : `\\${c}`;
      i++;
    }
  }
  return out;
}

function matchingBrace(glob: string, open: number): number {
  let depth = 0;
  for (let i = open; i < glob.length; i++) {
    if (glob[i] === '{') depth++;
    else if (glob[i] === '}' && --depth === 0) return i;
  }
  return -1;
}

/** The alternatives of a brace body: its top-level comma-separated parts, or a range's values; null when literal. */
function braceAlternatives(body: string): string[] | null {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    if (body[i] === '{') depth++;
    else if (body[i] === '}') depth--;
    else if (body[i] === ',' && depth === 0) {
      parts.push(body.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(body.slice(start));
  if (parts.length > 1) return parts;
  return rangeValues(body);
}

/** Single-character ranges only: picomatch turns a range into a character class, so `{1..10}` means `[1-10]`. */
function rangeValues(body: string): string[] | null {
  const range = /^(?:([0-9])\.\.([0-9])|([a-z])\.\.([a-z]))$/.exec(body);
  if (!range) return null;
  const [from, to] = (range[1] ? [range[1], range[2]] : [range[3], range[4]]).map((c) => c.charCodeAt(0)).sort((a, b) => a - b);
  const values: string[] = [];
  for (let code = from; code <= to; code++) values.push(String.fromCharCode(code));
  return values;
}
