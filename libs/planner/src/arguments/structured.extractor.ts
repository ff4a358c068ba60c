import type { Span } from './argument-fill.types';
import { overlaps } from './text-span.util';

export interface JsonMention extends Span {
  value: Record<string, unknown> | unknown[];
}

export interface ExpressionMention extends Span {
  value: string;
}

export interface AssignmentMention extends Span {
  name: string;
  value: number;
}

/** JSON objects or arrays written inline: `{"name": "Ada"}`. Unbalanced or invalid text is not one. */
export function extractJson(text: string): JsonMention[] {
  const found: JsonMention[] = [];
  for (let i = 0; i < text.length; i++) {
    const open = text[i];
    if (open !== '{' && open !== '[') continue;
    let depth = 0;
    let quoted = false;
    for (let j = i; j < text.length; j++) {
      const c = text[j];
      if (quoted) {
        if (c === '\\') j++;
        else if (c === '"') quoted = false;
        continue;
      }
      if (c === '"') quoted = true;
      else if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') depth--;
      if (depth === 0) {
        const raw = text.slice(i, j + 1);
        try {
          const value = JSON.parse(raw) as unknown;
          if (value !== null && typeof value === 'object') {
            found.push({ start: i, end: j + 1, text: raw, value: value as JsonMention['value'] });
            i = j;
          }
        } catch {
          // not JSON: keep scanning from the next character
        }
        break;
      }
    }
  }
  return found;
}

const MATH_FUNCTIONS = 'sqrt|cbrt|sin|cos|tan|asin|acos|atan|log|log10|log2|exp|abs|round|floor|ceil|mean|median|sum|min|max|std|pow|mod|factorial|det';
const EXPRESSION = new RegExp(`(?:(?:${MATH_FUNCTIONS})\\s*\\(|[(\\[]|-?\\d|[A-Za-z_]\\w*\\s*[-+*/^%]\\s*[\\w(])[\\w\\s.,()\\[\\]+\\-*/^%!=<>]*[\\w)\\]!]`, 'g');
const OPERATOR = /[-+*/^%!]|\b(?:sqrt|cbrt|sin|cos|tan|log|exp|abs|mean|median|sum|pow|factorial|round)\s*\(/;

/** A formula written inline: "sqrt(16) + 2^10", "price * qty * 1.2", "(3 + 4) * 5". */
export function extractExpressions(text: string, taken: Span[] = []): ExpressionMention[] {
  const found: ExpressionMention[] = [];
  const pattern = new RegExp(EXPRESSION.source, 'g');
  for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
    let raw = m[0].trim();
    // Words after the formula ("... and round it") are prose, not part of it; a formula may follow them
    // ("from x=1 to x=5 for the function f(x)=x^2"), so the search goes on right after the prose starts.
    const prose = /\s+(?:and|then|with|where|for|to|of|please|using|at|from|between|over|within|when|if)\b/i.exec(raw);
    if (prose) {
      raw = raw.slice(0, prose.index).trim();
      pattern.lastIndex = m.index + m[0].indexOf(m[0].trim()) + prose.index + prose[0].length;
    }
    const opens = (raw.match(/\(/g) ?? []).length;
    const closes = (raw.match(/\)/g) ?? []).length;
    if (closes > opens) raw = raw.replace(/\)+$/, (tail) => tail.slice(0, tail.length - (closes - opens)));
    // "f(x) = 3x^2": the function is what its name is set to.
    const named = /^\(\s*[a-z]\s*\)\s*=\s*/.exec(raw);
    const start = m.index + (named?.[0].length ?? 0);
    if (named) raw = raw.slice(named[0].length);
    const span = { start, end: start + raw.length, text: raw, value: raw };
    if (!OPERATOR.test(raw) || !/[\d(]|[A-Za-z]\w*\s*[-+*/^]/.test(raw) || taken.some((t) => overlaps(t, span))) continue;
    // Two operands side by side ("42 on 2026") are prose; a date's dashes are not subtraction.
    const withoutDates = raw.replace(/\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}-\d{1,2}-\d{2,4}\b/g, 'D');
    if (/^-?\d+(?:[.,]\d+)?$/.test(raw) || !OPERATOR.test(withoutDates) || /[\w)\]]\s+[A-Za-z(\d]/.test(withoutDates.replace(/\b(?:deg|mod|to|in)\b/g, '+'))) continue;
    found.push(span);
  }
  return found;
}

/** Named numbers: "price = 19.99", "qty is 3", "x: 4". */
export function extractAssignments(text: string, taken: Span[] = []): AssignmentMention[] {
  return [...text.matchAll(/\b([A-Za-z_]\w*)\s*(?:=|:|\bis\b|\bequals\b)\s*(-?\d+(?:\.\d+)?)\b/g)]
    .map((m) => ({ start: m.index, end: m.index + m[0].length, text: m[0], name: m[1], value: Number(m[2]) }))
    .filter((a) => !taken.some((t) => overlaps(t, a)));
}
