/** One recognised word of tesseract's TSV output (level 5), with its box in pixels. */
interface OcrWord {
  block: number;
  paragraph: number;
  line: number;
  left: number;
  width: number;
  height: number;
  text: string;
}

/**
 * A gap wider than this many line heights separates two cells of a table row, not two words of a
 * sentence (a space is about a third of the height).
 */
const CELL_GAP_IN_LINE_HEIGHTS = 1.2;

/**
 * Text from tesseract's TSV output, one output line per recognised line, so a table comes out row by
 * row; words far apart on a line (table cells, columns of a form) are separated by a tab instead of a
 * space. Blocks are separated by an empty line.
 */
export function textFromTesseractTsv(tsv: string): string {
  const words: OcrWord[] = [];
  for (const row of tsv.split('\n').slice(1)) {
    const cells = row.split('\t');
    if (cells.length < 12 || cells[0] !== '5') continue;
    const text = cells.slice(11).join('\t').trim();
    if (!text) continue;
    const [block, paragraph, line, , left, , width, height] = cells.slice(2, 10).map(Number);
    words.push({ block, paragraph, line, left, width, height, text });
  }

  const lines: { block: number; words: OcrWord[] }[] = [];
  for (const word of words) {
    const last = lines.at(-1);
    const sameLine = last && last.words[0].block === word.block && last.words[0].paragraph === word.paragraph && last.words[0].line === word.line;
    if (sameLine) last.words.push(word);
    else lines.push({ block: word.block, words: [word] });
  }

  return lines
    .map((line, i) => {
      const height = Math.max(...line.words.map((w) => w.height));
      const text = line.words
        .map((word, j) => {
          if (j === 0) return word.text;
          const previous = line.words[j - 1];
          const gap = word.left - (previous.left + previous.width);
          return `${gap > CELL_GAP_IN_LINE_HEIGHTS * height ? '\t' : ' '}${word.text}`;
        })
        .join('');
      return i > 0 && lines[i - 1].block !== line.block ? `\n${text}` : text;
    })
    .join('\n');
}
