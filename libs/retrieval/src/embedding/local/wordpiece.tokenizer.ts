import { readFileSync } from 'node:fs';

const CONTROL = /\p{C}/u;
const WHITESPACE = /\p{White_Space}/u;
const NONSPACING_MARKS = /\p{Mn}/gu;
const PUNCTUATION = /[!-/:-@[-`{-~]|\p{P}/u;

function isCjk(cp: number): boolean {
  return (
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x20000 && cp <= 0x2a6df) ||
    (cp >= 0x2a700 && cp <= 0x2b73f) ||
    (cp >= 0x2b740 && cp <= 0x2b81f) ||
    (cp >= 0x2b920 && cp <= 0x2ceaf) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0x2f800 && cp <= 0x2fa1f)
  );
}

interface TokenizerJson {
  model: { type: string; vocab: Record<string, number>; unk_token?: string; continuing_subword_prefix?: string; max_input_chars_per_word?: number };
  normalizer?: { type: string; clean_text?: boolean; handle_chinese_chars?: boolean; strip_accents?: boolean | null; lowercase?: boolean };
  pre_tokenizer?: { type: string };
  added_tokens?: { content: string; id: number }[];
}

/**
 * BERT WordPiece tokenization driven by a Hugging Face `tokenizer.json` (BertNormalizer,
 * BertPreTokenizer, WordPiece, `[CLS] … [SEP]`), matching the `tokenizers` library's ids. Written here
 * because the npm tokenizer packages pull in a second ONNX runtime and native image libraries.
 */
export class WordPieceTokenizer {
  private readonly vocab: Map<string, number>;
  private readonly prefix: string;
  private readonly maxCharsPerWord: number;
  private readonly cleanText: boolean;
  private readonly cjk: boolean;
  private readonly lowercase: boolean;
  private readonly stripAccents: boolean;
  private readonly added: Map<string, number>;
  private readonly addedPattern: RegExp | null;
  readonly unkId: number;
  readonly clsId: number;
  readonly sepId: number;

  constructor(json: TokenizerJson) {
    if (json.model?.type !== 'WordPiece') throw new Error(`unsupported tokenizer model ${json.model?.type}`);
    if (json.normalizer?.type !== 'BertNormalizer') throw new Error(`unsupported normalizer ${json.normalizer?.type}`);
    if (json.pre_tokenizer?.type !== 'BertPreTokenizer') throw new Error(`unsupported pre-tokenizer ${json.pre_tokenizer?.type}`);
    const n = json.normalizer;
    this.cleanText = n.clean_text !== false;
    this.cjk = n.handle_chinese_chars !== false;
    this.lowercase = n.lowercase !== false;
    this.stripAccents = n.strip_accents ?? this.lowercase;
    this.vocab = new Map(Object.entries(json.model.vocab));
    this.prefix = json.model.continuing_subword_prefix ?? '##';
    this.maxCharsPerWord = json.model.max_input_chars_per_word ?? 100;
    const id = (token: string) => {
      const value = this.vocab.get(token);
      if (value === undefined) throw new Error(`vocabulary has no ${token}`);
      return value;
    };
    this.unkId = id(json.model.unk_token ?? '[UNK]');
    this.clsId = id('[CLS]');
    this.sepId = id('[SEP]');
    // Special tokens are matched verbatim in the raw text, as `tokenizers` does.
    this.added = new Map((json.added_tokens ?? []).map((t) => [t.content, t.id]));
    const escaped = [...this.added.keys()].map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    this.addedPattern = escaped.length ? new RegExp(`(${escaped.join('|')})`) : null;
  }

  static fromFile(path: string): WordPieceTokenizer {
    return new WordPieceTokenizer(JSON.parse(readFileSync(path, 'utf8')) as TokenizerJson);
  }

  /** Token ids `[CLS] … [SEP]`, at most `maxLength` of them. */
  encode(text: string, maxLength: number): number[] {
    const ids: number[] = [];
    const segments = this.addedPattern ? text.split(this.addedPattern) : [text];
    for (const segment of segments) {
      if (!segment) continue;
      const special = this.added.get(segment);
      if (special !== undefined) ids.push(special);
      else for (const word of this.preTokenize(this.normalize(segment))) this.wordPiece(word, ids);
    }
    return [this.clsId, ...ids.slice(0, maxLength - 2), this.sepId];
  }

  private normalize(text: string): string {
    let out = '';
    for (const ch of text) {
      const cp = ch.codePointAt(0) as number;
      if (this.cleanText) {
        if (cp === 0 || cp === 0xfffd) continue;
        const isSpace = ch === '\t' || ch === '\n' || ch === '\r';
        if (!isSpace && CONTROL.test(ch)) continue;
        if (isSpace || WHITESPACE.test(ch)) {
          out += ' ';
          continue;
        }
      }
      out += this.cjk && isCjk(cp) ? ` ${ch} ` : ch;
    }
    if (this.stripAccents) out = out.normalize('NFD').replace(NONSPACING_MARKS, '');
    // Per character, like `tokenizers` (no final-sigma context).
    if (this.lowercase) out = Array.from(out, (ch) => ch.toLowerCase()).join('');
    return out;
  }

  private preTokenize(text: string): string[] {
    const words: string[] = [];
    let current = '';
    for (const ch of text) {
      if (WHITESPACE.test(ch)) {
        if (current) words.push(current);
        current = '';
      } else if (PUNCTUATION.test(ch)) {
        if (current) words.push(current);
        words.push(ch);
        current = '';
      } else current += ch;
    }
    if (current) words.push(current);
    return words;
  }

  /** Greedy longest-match-first subwords; a word with an unknown part becomes one `[UNK]`. */
  private wordPiece(word: string, out: number[]): void {
    const chars = Array.from(word);
    if (chars.length > this.maxCharsPerWord) {
      out.push(this.unkId);
      return;
    }
    const pieces: number[] = [];
    for (let start = 0; start < chars.length; ) {
      let end = chars.length;
      let id: number | undefined;
      for (; start < end; end--) {
        const piece = (start > 0 ? this.prefix : '') + chars.slice(start, end).join('');
        id = this.vocab.get(piece);
        if (id !== undefined) break;
      }
      if (id === undefined) {
        out.push(this.unkId);
        return;
      }
      pieces.push(id);
      start = end;
    }
    out.push(...pieces);
  }
}
