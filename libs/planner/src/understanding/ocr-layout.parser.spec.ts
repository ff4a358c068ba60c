import { textFromTesseractTsv } from './ocr-layout.parser';

const HEADER = 'level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext';
const word = (block: number, line: number, n: number, left: number, width: number, text: string) => `5\t1\t${block}\t1\t${line}\t${n}\t${left}\t${line * 40}\t${width}\t20\t95.0\t${text}`;

describe('textFromTesseractTsv', () => {
  it('puts each recognised line on its own line, tabs between distant words, spaces between close ones', () => {
    const tsv = [
      HEADER,
      '4\t1\t1\t1\t1\t0\t10\t40\t400\t20\t-1\t',
      word(1, 1, 1, 10, 60, 'Region'),
      word(1, 1, 2, 150, 40, 'Q1'),
      word(1, 1, 3, 260, 50, 'Total'),
      word(1, 2, 1, 10, 50, 'North'),
      word(1, 2, 2, 66, 20, 'East'),
      word(1, 2, 3, 150, 50, '1,200'),
      word(1, 2, 4, 260, 50, '3,540'),
      word(2, 1, 1, 10, 50, 'Footer'),
      word(2, 1, 2, 66, 50, ' '),
    ].join('\n');
    expect(textFromTesseractTsv(tsv)).toBe('Region\tQ1\tTotal\nNorth East\t1,200\t3,540\n\nFooter');
  });

  it('is empty for an image without text', () => {
    expect(textFromTesseractTsv(`${HEADER}\n1\t1\t0\t0\t0\t0\t0\t0\t100\t100\t-1\t\n`)).toBe('');
  });
});
