import { cjkShare, tokenize } from './text.tokenizer';

describe('tokenize', () => {
  it('keeps words of letters and digits, drops stop words, folds plurals and accents, splits identifiers', () => {
    expect(tokenize('Convert the Units of getWeatherForecast, café 42')).toEqual(['convert', 'unit', 'get', 'weather', 'forecast', 'cafe', '42']);
  });

  it('reads a CJK run as overlapping character pairs and its characters, a lone character as itself', () => {
    expect(tokenize('把10英里换算成公里')).toEqual(['把', '10', '英里', '里换', '换算', '算成', '成公', '公里', '英', '里', '换', '算', '成', '公', '里']);
    expect(tokenize('汇率：美元')).toEqual(['汇率', '汇', '率', '美元', '美', '元']);
    // Japanese and Korean the same way; Hangul stays whole syllables (not decomposed into jamo).
    expect(tokenize('ファイルを読む')).toEqual(['ファ', 'ァイ', 'イル', 'ルを', 'を読', '読む', 'フ', 'ァ', 'イ', 'ル', 'を', '読', 'む']);
    expect(tokenize('환율 계산')).toEqual(['환율', '환', '율', '계산', '계', '산']);
  });

  it('measures how much of a text is written in CJK scripts', () => {
    expect(cjkShare('把10英里换算成公里')).toBe(1);
    expect(cjkShare('convert 10 miles')).toBe(0);
    expect(cjkShare('用Python读取CSV文件')).toBeCloseTo(5 / 14, 5);
    expect(cjkShare('42 + 7')).toBe(0);
  });

  it('lets a query meet a document however either is segmented', () => {
    const document = new Set(tokenize('在不同的计量单位之间换算数值，例如英里和公里'));
    const query = tokenize('把10英里换算成公里');
    expect(query.filter((term) => document.has(term) && term.length === 2)).toEqual(['英里', '换算', '公里']);
  });

  it('splits mixed text at the script boundary and normalizes full-width forms', () => {
    expect(tokenize('用Python读取ＣＳＶ文件')).toEqual(['用', 'python', '读取', '读', '取', 'csv', '文件', '文', '件']);
    expect(tokenize('１００美元')).toEqual(['100', '美元', '美', '元']);
  });
});
